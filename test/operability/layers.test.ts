// The flow the README states, checked on the imports: the GraphQL and REST layers read data only
// through the domain (never src/db's raw reads), only src/db/client.ts touches a generated Prisma
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

/** The repository paths a file imports (relative specifiers only), e.g. "src/db/reads.ts". */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  return [...text.matchAll(IMPORT)].map((m) => m[1]).filter((s) => s.startsWith(".")).map((s) => path.join(path.dirname(file), s));
}

const RAW_READS = new Set(["src/db/reads.ts", "src/db/searches.ts"]);

describe("layers", () => {
  it("GraphQL, REST and HTTP code reads data through the domain, not src/db's raw reads", () => {
    const skips = ["src/graphql", "src/rest", "src/http"].flatMap(tsFiles).flatMap((file) =>
      importsOf(file).filter((target) => RAW_READS.has(target)).map((target) => `${file} imports ${target}`),
    );
    expect(skips).toEqual([]);
  });

  it("only src/db/client.ts imports a generated Prisma client", () => {
    const direct = ["src", "test", "scripts", "bench"].flatMap(tsFiles).flatMap((file) =>
      importsOf(file).filter((target) => target.startsWith("generated/")).map((target) => `${file} imports ${target}`),
    );
    expect(direct.length).toBeGreaterThan(0);
    expect(direct.filter((line) => !line.startsWith("src/db/client.ts "))).toEqual([]);
  });

  it("defines each row type once, in src/db/rows.ts", () => {
    const elsewhere = tsFiles("src").filter((file) => file !== "src/db/rows.ts" && /GetPayload</.test(readFileSync(path.join(ROOT, file), "utf8")));
    expect(elsewhere).toEqual([]);
  });

  it("keeps HTTP statuses out of the domain: they come from src/http/error-status.ts", () => {
    const withStatus = tsFiles("src/domain").filter((file) => /\bstatus\s*:\s*\d|\bhttp\s*:\s*\{/.test(readFileSync(path.join(ROOT, file), "utf8")));
    expect(withStatus).toEqual([]);
    // A code -> status table; the reverse ones (a status Fastify raised -> the code to show) are not this.
    const maps = tsFiles("src").filter((file) => /RATE_LIMITED["']?\s*:\s*429/.test(readFileSync(path.join(ROOT, file), "utf8")));
    expect(maps).toEqual(["src/http/error-status.ts"]);
  });
});
