// Authors a migration for both databases without touching any database:
//   npm run db:new-migration -- <name>
// It diffs the schema each provider had at its last migration (migrations/snapshot.prisma)
// against the current generated schema, writes migrations/<timestamp>_<name>/migration.sql,
// and moves the snapshot forward. The service applies the folders in order (src/db/migrate.ts).
// The Prisma CLI runs the WebAssembly schema engine through prisma/schema-engine.mjs (see the
// config files); a schema-to-schema diff reads no database, so PostgreSQL need not be running.
import { existsSync, mkdirSync, writeFileSync, copyFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PROVIDERS, writeSchemas, prismaCli } from "./generate.mjs";

const name = (process.argv[2] ?? "").replace(/[^a-z0-9_]+/gi, "_");
if (!name) {
  console.error("usage: npm run db:new-migration -- <name>");
  process.exit(2);
}
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);

writeSchemas();
for (const p of PROVIDERS) {
  const snapshot = here(`./${p.dir}/migrations/snapshot.prisma`);
  const from = existsSync(snapshot) ? ["--from-schema", snapshot] : ["--from-empty"];
  let sql = prismaCli(p, ["migrate", "diff", ...from, "--to-schema", here(`./${p.dir}/schema.prisma`), "--script"], {
    capture: true,
  });
  // SQLite DDL may carry an unquoted JSON default (DEFAULT []); quote it so SQLite accepts it.
  if (p.dir === "sqlite") sql = sql.replace(/DEFAULT \[\]/g, "DEFAULT '[]'");
  if (!/\b(CREATE|ALTER|DROP)\b/i.test(sql)) {
    console.log(`${p.dir}: no change`);
    continue;
  }
  const dir = here(`./${p.dir}/migrations/${stamp}_${name}/`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(dir + "migration.sql", sql);
  copyFileSync(here(`./${p.dir}/schema.prisma`), snapshot);
  console.log(`${p.dir}: wrote ${dir}migration.sql`);
}
