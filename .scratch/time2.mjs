import Database from "better-sqlite3";
const db = new Database("/tmp/b.db");
const cols = db.prepare(`SELECT * FROM "Restaurant" LIMIT 1`).columns().map(c => `"Restaurant"."${c.name}" AS "${c.name}"`).join(", ");
const ids = db.prepare(`SELECT "ownerId" FROM "Restaurant" ORDER BY "createdAt" DESC LIMIT 50`).all().map(r => r.ownerId);
const uniq = [...new Set(ids)];
const q = {
  page: [`SELECT ${cols} FROM "Restaurant" ORDER BY "createdAt" DESC, "id" DESC LIMIT ? OFFSET ?`, [50, 0]],
  count: [`SELECT COUNT(*) AS "n" FROM "Restaurant"`, []],
  users: [`SELECT * FROM "User" WHERE "id" IN (${uniq.map(() => "?").join(",")})`, uniq],
};
for (const [k, [sql, args]] of Object.entries(q)) {
  const st = db.prepare(sql);
  for (let i = 0; i < 200; i++) st.all(args);
  const t = performance.now(); for (let i = 0; i < 2000; i++) st.all(args);
  console.log(k, ((performance.now() - t) / 2000 * 1000).toFixed(1), "µs");
  console.log(db.prepare("EXPLAIN QUERY PLAN " + sql).all(args).map(r => r.detail).join(" | "));
}
