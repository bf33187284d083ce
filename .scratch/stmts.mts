import { createDb } from "/work/main/src/db/client.ts";
import Database from "better-sqlite3";
const sql: string[] = [];
const db = createDb({ provider: "sqlite", url: "file:/tmp/b.db", poolSize: 1, sqliteSynchronous: "FULL", onQuery: (e) => sql.push(e.query) } as any);
const { buildServer } = await import("/work/main/src/server.ts");
const { loadConfig } = await import("/work/main/src/config.ts");
const config = loadConfig({ ...process.env, DATABASE_URL: "file:/tmp/b.db", NODE_ENV: "production", LOG_LEVEL: "silent" } as any);
const app = await buildServer({ config, db } as any);
const r = await db.restaurant.findFirst({ where: { comments: { some: {} } } });
const login = await app.inject({ method: "POST", url: "/auth/token", payload: { username: "admin", password: "demo-password" } });
const token = JSON.parse(login.body).token ?? JSON.parse(login.body).access_token;
sql.length = 0;
const q = process.argv[2];
const res = await app.inject({ method: "POST", url: "/graphql", headers: { authorization: `Bearer ${token}` }, payload: { query: q, variables: JSON.parse(process.argv[3] ?? "{}") } });
console.log(res.statusCode, res.body.slice(0, 200));
const raw = new Database("/tmp/b.db");
for (const s of sql) {
  console.log("\n", s.slice(0, 300));
}
process.exit(0);
