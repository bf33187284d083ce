// One parsed document per distinct text while anything holds it. A live subscription keeps its
// document for as long as it runs, and 10,000 phones following restaurant pages send the same
// few texts: parsed each time, every subscription held its own syntax tree (its tokens and their
// locations, ~5 KiB; issue 48). Here a text parsed while an earlier parse of it is still held by
// someone gets that same tree (graphql-js never changes a tree once parsed), and its validation
// outcome with it (kept per tree by the caller). Nothing is kept for its own sake: the table holds
// trees weakly, and an entry goes once its tree is collected, so it costs no memory beyond what
// the subscriptions hold anyway; it is also capped, so a flood of distinct texts between two
// collections cannot grow it.
import { parse, type DocumentNode } from "graphql";

/** Distinct texts remembered at most (past it, a new text is parsed without being remembered). */
const MAX_TEXTS = 1_000;

export function sharedDocuments(parseOptions: { maxTokens: number }) {
  const trees = new Map<string, WeakRef<DocumentNode>>();
  const collected = new FinalizationRegistry<string>((text) => {
    if (trees.get(text)?.deref() === undefined) trees.delete(text);
  });

  /** The parsed `text` (throws graphql-js's syntax error, as parse does). */
  return function parsed(text: string): DocumentNode {
    const held = trees.get(text)?.deref();
    if (held) return held;
    const document = parse(text, parseOptions);
    if (trees.size < MAX_TEXTS || trees.has(text)) {
      trees.set(text, new WeakRef(document));
      collected.register(document, text);
    }
    return document;
  };
}
