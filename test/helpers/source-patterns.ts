// Every regular expression written in the source: the literals (/.../flags) and the patterns
// given to `new RegExp(...)` / `RegExp(...)`, found with a real TypeScript parser (oxc, through
// rolldown, which vitest's vite already brings) rather than by guessing where a `/` starts one.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseAst } from "rolldown/parseAst";

export type SourcePattern = {
  /** "src/rest/requests/fields.ts:54" */
  where: string;
  source: string;
  flags: string;
  /** Set for a RegExp(...) call whose pattern is not a plain string: it cannot be checked statically. */
  dynamic?: string;
};

type AstNode = { type: string; start: number; end: number; [key: string]: unknown };

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(full);
    return entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

const isNode = (v: unknown): v is AstNode =>
  typeof v === "object" && v !== null && typeof (v as AstNode).type === "string";

const stringValue = (node: unknown): string | undefined => {
  if (!isNode(node)) return undefined;
  if (node.type === "Literal" && typeof node.value === "string") return node.value;
  if (node.type === "TemplateLiteral" && (node.expressions as unknown[]).length === 0) {
    return (node.quasis as { value: { cooked: string } }[])[0]?.value.cooked ?? "";
  }
  return undefined;
};

/** The patterns of one source text (`file` names it in `where`). */
export function patternsIn(text: string, file: string): SourcePattern[] {
  const ast = parseAst(text, { lang: "ts", sourceType: "module" }, file);
  const lineOf = (offset: number) => text.slice(0, offset).split("\n").length;
  const found: SourcePattern[] = [];
  // Iterative walk: the check must not itself depend on how deep the code nests.
  const stack: unknown[] = [ast];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    if (!isNode(node)) continue;
    const where = `${file}:${lineOf(node.start)}`;
    const regex = node.regex as { pattern: string; flags: string } | undefined;
    if (node.type === "Literal" && regex) found.push({ where, source: regex.pattern, flags: regex.flags });
    const callee = node.callee as AstNode | undefined;
    if (
      (node.type === "NewExpression" || node.type === "CallExpression") &&
      callee?.type === "Identifier" &&
      callee.name === "RegExp"
    ) {
      const [pattern, flags] = node.arguments as unknown[];
      const source = stringValue(pattern);
      const flagText = flags === undefined ? "" : stringValue(flags);
      if (source !== undefined && flagText !== undefined) found.push({ where, source, flags: flagText });
      else
        found.push({
          where,
          source: text.slice(node.start, node.end),
          flags: "",
          dynamic: text.slice(node.start, node.end),
        });
    }
    for (const [key, value] of Object.entries(node)) if (key !== "type" && typeof value === "object") stack.push(value);
  }
  return found.sort((a, b) => a.where.localeCompare(b.where, undefined, { numeric: true }));
}

/** The patterns of every .ts file under `root` (e.g. "src"), relative to `base`. */
export function sourcePatterns(base: string, root = "src"): SourcePattern[] {
  return tsFiles(path.join(base, root)).flatMap((file) =>
    patternsIn(readFileSync(file, "utf8"), path.relative(base, file)),
  );
}
