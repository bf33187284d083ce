// README.md stays true to the code: its REST-to-GraphQL table is the one `npm run docs` makes
// from the route table, and its configuration table names every variable the service reads.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { README_PATH, routesSection, withRoutesSection, START, END } from "../../scripts/docs.ts";
import { routes } from "../../src/rest/routes/index.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const readme = readFileSync(README_PATH, "utf8");

const between = (text: string, start: string, end: string) =>
  text.slice(text.indexOf(start), text.indexOf(end) + end.length);

describe("README's REST-to-GraphQL table", () => {
  it("is the one generated from the route table (if not: npm run docs)", () => {
    expect(readme).toContain(START);
    expect(between(readme, START, END), "README.md's route table is out of date: run npm run docs").toBe(
      routesSection(),
    );
  });

  it("has one row per route, naming its method, path and GraphQL field", () => {
    const rows = between(readme, START, END)
      .split("\n")
      .filter((l) => l.startsWith("| ") && !l.startsWith("| legacy operation"));
    expect(rows).toHaveLength(routes.length);
    routes.forEach((route, i) => {
      expect(rows[i]).toContain(`\`${route.method} ${route.path}\``);
      expect(rows[i]).toMatch(/`\w+` \((query|mutation)\)/);
    });
  });

  it("notices a changed route, and refuses a README without the markers", () => {
    const changed = routes.map((r, i) => (i === 0 ? { ...r, status: 299 } : r));
    expect(withRoutesSection(readme, routesSection(changed))).not.toBe(readme);
    expect(() => withRoutesSection("# no markers here")).toThrow(/needs the markers/);
  });
});

describe("README's configuration table", () => {
  const table = between(readme, "## Configuration", "## REST to GraphQL");
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
    expect([...read].filter((v) => !readme.includes(`\`${v}\``))).toEqual([]);
  });
});
