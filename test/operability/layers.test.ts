// The flow the README states, checked on the imports: the GraphQL and REST layers read data only
// through the domain (never src/db's raw reads), only src/db/prisma.ts touches a generated Prisma
// client, each row type has one home (src/db/rows.ts), and the domain's errors carry no HTTP status.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "__generated__" ? [] : tsFiles(relative);
    return entry.name.endsWith(".ts") ? [relative] : [];
  });
}

const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gm;

/** The repository paths a file imports (relative specifiers only), e.g. "src/db/reads/by-id.ts". */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  return [...text.matchAll(IMPORT)]
    .map((m) => m[1])
    .filter((s) => s.startsWith("."))
    .map((s) => path.join(path.dirname(file), s));
}

/** Rows by id and the lists that follow them (src/db/reads/), and the searches (src/db/search/). */
const RAW_READS = [`src${path.sep}db${path.sep}reads${path.sep}`, `src${path.sep}db${path.sep}search${path.sep}`];
const isRawRead = (target: string) => RAW_READS.some((folder) => target.startsWith(folder));
const isRowRead = (target: string) => target.startsWith(RAW_READS[0]);

describe("layers", () => {
  it("reads rows by id only through GraphQL's data layer (src/graphql/data/), and searches only through the domain", () => {
    // Rows by id and the lists that follow them obey no rule: the data layer (the restaurant read
    // plan and the loaders) imports those raw reads openly; nothing else above the domain does,
    // and searches (whose input the domain checks) are the domain's alone.
    const skips = ["src/graphql", "src/rest", "src/http"].flatMap(tsFiles).flatMap((file) =>
      importsOf(file)
        .filter(isRawRead)
        .filter((target) => !(isRowRead(target) && file.startsWith(`src${path.sep}graphql${path.sep}data${path.sep}`)))
        .map((target) => `${file} imports ${target}`),
    );
    expect(skips).toEqual([]);
    const readers = ["src/graphql", "src/rest", "src/http"]
      .flatMap(tsFiles)
      .filter((file) => importsOf(file).some(isRowRead));
    expect(readers.sort()).toEqual(["src/graphql/data/loaders.ts", "src/graphql/data/restaurant-plan.ts"]);
  });

  it("keeps the raw reads out of the domain's exports: the domain hands out rules, not SQL", () => {
    const reExports = tsFiles("src/domain").filter((file) =>
      /^\s*export\s*\{[^}]*\}\s*from\s*"(?:\.\.\/)+db\/(reads|search)\//m.test(
        readFileSync(path.join(ROOT, file), "utf8"),
      ),
    );
    expect(reExports).toEqual([]);
  });

  it("GraphQL, REST and HTTP code calls no Prisma model: every read and write goes through the domain", () => {
    const prismaCall =
      /\b(db|prisma)\.[a-z]\w*\.(find|create|update|delete|upsert|count|aggregate|groupBy)\w*\(|\$(queryRaw|executeRaw|transaction)\b/;
    const calls = ["src/graphql", "src/rest", "src/http"]
      .flatMap(tsFiles)
      .filter((file) => prismaCall.test(readFileSync(path.join(ROOT, file), "utf8")));
    expect(calls).toEqual([]);
  });

  it("only src/db/prisma.ts imports a generated Prisma client", () => {
    const direct = ["src", "test", "scripts", "bench"].flatMap(tsFiles).flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith("generated/"))
        .map((target) => `${file} imports ${target}`),
    );
    expect(direct.length).toBeGreaterThan(0);
    expect(direct.filter((line) => !line.startsWith("src/db/prisma.ts "))).toEqual([]);
  });

  it("defines each row type once, in src/db/rows.ts", () => {
    const elsewhere = tsFiles("src").filter(
      (file) => file !== "src/db/rows.ts" && /GetPayload</.test(readFileSync(path.join(ROOT, file), "utf8")),
    );
    expect(elsewhere).toEqual([]);
  });

  it("keeps HTTP statuses out of the domain: each error code's facts are in one table, src/contract/error-codes.ts", () => {
    const withStatus = tsFiles("src/domain").filter((file) =>
      /\bstatus\s*:\s*\d|\bhttp\s*:\s*\{/.test(readFileSync(path.join(ROOT, file), "utf8")),
    );
    expect(withStatus).toEqual([]);
    // Any table pairing a code with a status, either way round.
    const maps = tsFiles("src").filter((file) =>
      /RATE_LIMITED["']?\s*:\s*(\{\s*status\s*:\s*)?429|429\s*:\s*["']RATE_LIMITED/.test(
        readFileSync(path.join(ROOT, file), "utf8"),
      ),
    );
    expect(maps).toEqual(["src/contract/error-codes.ts"]);
  });

  it("has no arrow running back up: no folder of src imports one that imports it", () => {
    const folderOf = (file: string) => file.split(path.sep)[1];
    const edges = new Map<string, string[]>();
    for (const file of tsFiles("src")) {
      for (const target of importsOf(file)) {
        const [from, to] = [folderOf(file), folderOf(target)];
        if (!target.startsWith("src" + path.sep) || from === to || to.endsWith(".ts") || from.endsWith(".ts")) continue;
        edges.set(`${from} -> ${to}`, [...(edges.get(`${from} -> ${to}`) ?? []), file]);
      }
    }
    const backUp = [...edges.keys()].filter((edge) => edges.has(edge.split(" -> ").reverse().join(" -> ")));
    expect(backUp.map((edge) => `${edge} (${edges.get(edge)!.join(", ")})`)).toEqual([]);
  });

  it("keeps at most 10 files at the root of each folder of src, so a folder's listing says what it holds", () => {
    // Folders still over, with the reason (docs/architecture.md, "Folders over 10 files").
    const waiting: Record<string, string> = {
      "src/storage": "grown by issue 47 while the split ran; split once it settles",
    };
    const crowded = (dir: string): string[] => {
      const entries = readdirSync(path.join(ROOT, dir), { withFileTypes: true });
      const files = entries.filter((e) => e.isFile()).length;
      const here = files > 10 && !waiting[dir] ? [`${dir}: ${files}`] : [];
      return [...here, ...entries.filter((e) => e.isDirectory()).flatMap((e) => crowded(`${dir}/${e.name}`))];
    };
    expect(crowded("src")).toEqual([]);
  });

  it("keeps src/contract (the vocabulary every layer shares) free of the project's other code", () => {
    const imports = tsFiles("src/contract").flatMap((file) =>
      importsOf(file)
        .filter((target) => !target.startsWith(`src${path.sep}contract`))
        .map((t) => `${file} imports ${t}`),
    );
    expect(imports).toEqual([]);
  });
});

describe("the database layer (docs/architecture.md, The database layer)", () => {
  const DB = `src${path.sep}db`;
  const dbFiles = tsFiles("src/db");
  const dialectFolder = (file: string) =>
    file.startsWith(`${DB}${path.sep}sqlite${path.sep}`) || file.startsWith(`${DB}${path.sep}postgres${path.sep}`);

  it("has no import circle in src/db (type imports included)", () => {
    const graph = new Map(dbFiles.map((file) => [file, importsOf(file).filter((t) => t.startsWith(DB))]));
    const circles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        circles.push([...trail.slice(trail.indexOf(file)), file].join(" -> "));
        return;
      }
      state.set(file, "open");
      for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
      state.set(file, "done");
    };
    for (const file of dbFiles) visit(file, []);
    expect(circles).toEqual([]);
  });

  it("tells SQLite from PostgreSQL only in their own folders: no branch on a dialect's name, no label", () => {
    const branch = /(===|!==)\s*"(sqlite|postgres)"|"(sqlite|postgres)"\s*(===|!==)/;
    const label = /\b(SQLite|PostgreSQL):/;
    const found = dbFiles.flatMap((file) => {
      const text = readFileSync(path.join(ROOT, file), "utf8");
      return [
        ...(branch.test(text) ? [`${file}: a branch on a dialect's name`] : []),
        ...(!dialectFolder(file) && label.test(text) ? [`${file}: a "SQLite:"/"PostgreSQL:" label`] : []),
      ];
    });
    expect(found).toEqual([]);
  });

  it("keeps its files under 350 lines and at most 10 files at the root of each of its folders", () => {
    const all = readdirSync(path.join(ROOT, "src/db"), { recursive: true, withFileTypes: true }).filter((e) =>
      e.isFile(),
    );
    const long = all
      .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)))
      .filter((file) => readFileSync(path.join(ROOT, file), "utf8").split("\n").length > 350);
    expect(long).toEqual([]);
    const perFolder = new Map<string, number>();
    for (const e of all) perFolder.set(e.parentPath, (perFolder.get(e.parentPath) ?? 0) + 1);
    const crowded = [...perFolder]
      .filter(([, n]) => n > 10)
      .map(([folder, n]) => `${path.relative(ROOT, folder)}: ${n}`);
    expect(crowded).toEqual([]);
  });
});

describe("the data commands (docs/architecture.md, The data commands' connection)", () => {
  const branch = /(===|!==)\s*"(sqlite|postgres)"|"(sqlite|postgres)"\s*(===|!==)|case\s+"(sqlite|postgres)"/g;
  const branchesIn = (file: string) => readFileSync(path.join(ROOT, file), "utf8").match(branch)?.length ?? 0;

  it("choose a database's implementation once (DATA_DIALECTS): no branch on a dialect's name in src/backup", () => {
    expect(tsFiles("src/backup").filter((file) => branchesIn(file) > 0)).toEqual([]);
    const dialectFolder = /^src\/backup\/connection\/(sqlite|postgres)\//;
    const labelled = tsFiles("src/backup").filter(
      (file) => !dialectFolder.test(file) && /\b(SQLite|PostgreSQL):/.test(readFileSync(path.join(ROOT, file), "utf8")),
    );
    expect(labelled).toEqual([]);
  });

  it("keep src at 8 branches on a dialect's name at most, each choosing an implementation", () => {
    const found = tsFiles("src").flatMap((file) => Array<string>(branchesIn(file)).fill(file));
    expect(found.length, found.join("\n")).toBeLessThanOrEqual(8);
  });

  it("keep at most 10 files at the root of each folder of src/backup", () => {
    const all = readdirSync(path.join(ROOT, "src/backup"), { recursive: true, withFileTypes: true }).filter((e) =>
      e.isFile(),
    );
    const perFolder = new Map<string, number>();
    for (const e of all) perFolder.set(e.parentPath, (perFolder.get(e.parentPath) ?? 0) + 1);
    expect(
      [...perFolder].filter(([, n]) => n > 10).map(([folder, n]) => `${path.relative(ROOT, folder)}: ${n}`),
    ).toEqual([]);
  });
});
