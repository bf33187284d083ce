import Database from "better-sqlite3";
const db = new Database("/tmp/b.db");
const id = "seed-r-00001";
const q = {
  restaurant: `SELECT * FROM "Restaurant" WHERE "id" IN (?)`,
  user: `SELECT * FROM "User" WHERE "id" IN (?)`,
  latest: `SELECT c.* FROM "Comment" c WHERE c."id" IN (SELECT (SELECT n."id" FROM "Comment" n WHERE n."restaurantId" = r."id" ORDER BY n."createdAt" DESC, n."id" DESC LIMIT 1) FROM "Restaurant" r WHERE r."id" IN (?))`,
};
for (const [k, sql] of Object.entries(q)) {
  const st = db.prepare(sql); const arg = k === "user" ? "seed-u-demo" : id;
  for (let i = 0; i < 2000; i++) st.all(arg);
  const t = performance.now(); for (let i = 0; i < 20000; i++) st.all(arg);
  console.log(k, ((performance.now() - t) / 20000 * 1000).toFixed(1), "µs");
  console.log(db.prepare("EXPLAIN QUERY PLAN " + sql).all(arg).map(r => r.detail).join(" | "));
}
