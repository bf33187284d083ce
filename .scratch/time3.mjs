import Database from "better-sqlite3";
const db = new Database("/tmp/l.db");
const cols = db.prepare(`SELECT * FROM "Grocery" LIMIT 1`).columns().map(c => `"Grocery"."${c.name}" AS "${c.name}"`).join(", ");
for (const title of ["rice", "milk", "chocolate", "zzz"]) {
  const like = `%${title}%`;
  const page = db.prepare(`SELECT ${cols} FROM "Grocery" WHERE "titleSearch" LIKE ? ESCAPE '\\' ORDER BY "createdAt" DESC, "id" DESC LIMIT 20 OFFSET 0`).raw(true);
  const count = db.prepare(`SELECT COUNT(*) FROM "Grocery" WHERE "titleSearch" LIKE ? ESCAPE '\\'`).raw(true);
  for (const [k, st] of [["page", page], ["count", count]]) {
    for (let i = 0; i < 100; i++) st.all(like);
    const t = performance.now(); for (let i = 0; i < 1000; i++) st.all(like);
    console.log(title, k, ((performance.now() - t)).toFixed(0), "µs", k === "count" ? st.all(like)[0][0] : "");
  }
}
console.log(db.prepare(`EXPLAIN QUERY PLAN SELECT COUNT(*) FROM "Grocery" WHERE "titleSearch" LIKE ? ESCAPE '\\'`).all("%a%").map(r=>r.detail));
