import { createDb } from "/work/main/src/db/client.ts";
import * as reads from "/work/main/src/db/reads.ts";
const db = createDb({ provider: "sqlite", url: "file:/tmp/b.db", poolSize: 1, sqliteSynchronous: "FULL" } as any);
await db.user.count();
const id = "seed-r-00001";
for (const [name, fn] of [
  ["restaurantsByIds", () => reads.restaurantsByIds(db, [id])],
  ["usersByIds", () => reads.usersByIds(db, ["seed-u-demo"])],
  ["latestCommentsFor", () => reads.latestCommentsFor(db, [id])],
] as const) {
  for (let i = 0; i < 2000; i++) await fn();
  const t = performance.now(); for (let i = 0; i < 20000; i++) await fn();
  console.log(name, ((performance.now() - t) / 20000 * 1000).toFixed(1), "µs");
}
process.exit(0);
