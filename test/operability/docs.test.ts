// The documentation stays true to the code: docs/rest-contract.md's table of operations and of
// error codes are the ones `npm run docs` makes from the route table and error-codes.ts; the
// configuration table (docs/configuration.md) names every variable the service reads; and no link
// of README.md or docs/ points at a file or heading that is not in the repository.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  CODES_END,
  CODES_START,
  CONTRACT_PATH,
  END,
  errorCodesSection,
  routesSection,
  START,
  withGeneratedSections,
} from "../../scripts/docs.ts";
import { routes } from "../../src/rest/routes/index.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const contract = readFileSync(CONTRACT_PATH, "utf8");
const configuration = readFileSync(path.join(ROOT, "docs/configuration.md"), "utf8");

const between = (text: string, start: string, end: string) =>
  text.slice(text.indexOf(start), text.indexOf(end) + end.length);

describe("docs/rest-contract.md's table of operations", () => {
  it("is the one generated from the route table (if not: npm run docs)", () => {
    expect(contract).toContain(START);
    expect(between(contract, START, END), "the table of operations is out of date: run npm run docs").toBe(
      routesSection(),
    );
    expect(between(contract, CODES_START, CODES_END), "the error codes are out of date: run npm run docs").toBe(
      errorCodesSection(),
    );
  });

  it("has one row per route, naming its method, path and GraphQL field", () => {
    const rows = between(contract, START, END)
      .split("\n")
      .filter((l) => l.startsWith("| ") && !l.startsWith("| legacy operation"));
    expect(rows).toHaveLength(routes.length);
    routes.forEach((route, i) => {
      expect(rows[i]).toContain(`\`${route.method} ${route.path}\``);
      expect(rows[i]).toMatch(/`\w+` \((query|mutation)\)/);
    });
  });

  it("notices a changed route, and refuses a document without the markers", () => {
    const changed = routes.map((r, i) => (i === 0 ? { ...r, status: 299 } : r));
    expect(withGeneratedSections(contract, routesSection(changed))).not.toBe(contract);
    expect(() => withGeneratedSections("# no markers here")).toThrow(/needs the markers/);
  });
});

describe("the configuration table (docs/configuration.md)", () => {
  const table = configuration;
  const documented = new Set([...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]));

  it("lists every variable src/config.ts reads", () => {
    const source = readFileSync(path.join(ROOT, "src/config.ts"), "utf8");
    const schema = source.slice(
      source.indexOf("const schema = z.object({"),
      source.indexOf("});", source.indexOf("const schema = z.object({")),
    );
    const variables = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]);
    expect(variables.length).toBeGreaterThan(20);
    expect(variables.filter((v) => !documented.has(v))).toEqual([]);
  });

  it("mentions every variable read elsewhere in src (command-line tools)", () => {
    const files = readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" }).filter((f) =>
      f.endsWith(".ts"),
    );
    const read = new Set(
      files.flatMap((f) =>
        [...readFileSync(path.join(ROOT, "src", f), "utf8").matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)].map(
          (m) => m[1],
        ),
      ),
    );
    expect([...read].filter((v) => !configuration.includes(`\`${v}\``))).toEqual([]);
  });
});

/** README.md and every Markdown file under docs/, as paths from the root. */
const documents = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => path.join("docs", f)),
];

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to hyphens. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

const anchorsOf = (file: string) =>
  new Set(
    readFileSync(path.join(ROOT, file), "utf8")
      .split("\n")
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) => anchor(l.replace(/^#+ /, ""))),
  );

/** The text outside fenced blocks (a link-looking string in a code sample is not a link). */
const prose = (text: string) => text.replace(/^(\s*)(```|~~~)[\s\S]*?^\1\2\s*$/gm, "");

/** A file git ignores is one a command writes (bench/results/*.json): named before it exists. */
const writtenByACommand = (file: string) => spawnSync("git", ["check-ignore", "-q", file], { cwd: ROOT }).status === 0;

describe("links in README.md and docs/", () => {
  it("point at files and headings that exist in the repository", () => {
    const broken: string[] = [];
    for (const file of documents) {
      const text = prose(readFileSync(path.join(ROOT, file), "utf8"));
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue; // https:, mailto:
        const [where, hash] = target!.split("#");
        const resolved = where ? path.normalize(path.join(path.dirname(file), where)) : file;
        if (resolved.startsWith("..") || path.isAbsolute(resolved))
          broken.push(`${file}: ${target} leaves the repository`);
        else if (!existsSync(path.join(ROOT, resolved))) broken.push(`${file}: ${target} does not exist`);
        else if (hash && resolved.endsWith(".md") && !anchorsOf(resolved).has(hash))
          broken.push(`${file}: ${target} names no heading of ${resolved}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("name files of the repository that exist, and none outside it", () => {
    const missing: string[] = [];
    for (const file of documents) {
      const text = readFileSync(path.join(ROOT, file), "utf8");
      for (const [, named] of text.matchAll(
        /`((?:\.\.\/|src\/|test\/|docs\/|scripts\/|bench\/|prisma\/)[^`\s*<>]+\.[a-z]+)`/g,
      )) {
        const resolved = named!.startsWith("../") ? path.normalize(path.join(path.dirname(file), named!)) : named!;
        if (resolved.startsWith("..")) missing.push(`${file}: ${named} is outside the repository`);
        else if (!existsSync(path.join(ROOT, resolved)) && !writtenByACommand(resolved))
          missing.push(`${file}: ${named} does not exist`);
      }
    }
    expect(missing).toEqual([]);
  });
});
