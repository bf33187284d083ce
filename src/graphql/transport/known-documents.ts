// The documents this server has parsed and validated for a client before, by their text, so that
// the same text sent again skips straight to admission's step 4 (direct-answer.ts). Only a
// document that passed validation is remembered: an invalid one always goes the long way and is
// refused there.
//
// Bounded by the total length of the texts kept (a flood of distinct valid documents evicts the
// oldest first, and the evicted ones simply take Apollo's handler again): the parsed documents are
// the very objects Apollo's own document cache holds, so the bound is on what this map alone
// could keep alive beyond that cache.
import type { DocumentNode } from "graphql";

/** The most text kept, in UTF-16 code units (an app's few dozen documents take a few KiB each). */
const MAX_TEXT_UNITS = 1_048_576;
/** A text longer than this is never kept: one document may not take a large share of the bound. */
const MAX_ONE_TEXT_UNITS = 65_536;

export class KnownDocuments {
  private readonly documents = new Map<string, DocumentNode>();
  private units = 0;

  constructor(
    private readonly maxUnits = MAX_TEXT_UNITS,
    private readonly maxOneUnits = MAX_ONE_TEXT_UNITS,
  ) {}

  get(text: string): DocumentNode | undefined {
    return this.documents.get(text);
  }

  /** Keeps a validated document under its text, evicting the oldest texts beyond the bound. */
  remember(text: string, document: DocumentNode): void {
    if (text.length > this.maxOneUnits || this.documents.has(text)) return;
    this.documents.set(text, document);
    this.units += text.length;
    for (const oldest of this.documents.keys()) {
      if (this.units <= this.maxUnits) break;
      this.documents.delete(oldest);
      this.units -= oldest.length;
    }
  }

  get size(): number {
    return this.documents.size;
  }
}
