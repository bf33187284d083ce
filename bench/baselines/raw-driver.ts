// Baseline "floor": a bare node:http handler that reads one restaurant row straight from the
// database driver (better-sqlite3 or pg) and answers it as JSON. No framework, no GraphQL, no
// Prisma, no auth: the least work a "restaurant by id" request can cost on this database.
// Run: DATABASE_URL=file:./data/gateway.db PORT=4101 node --import tsx bench/baselines/raw-driver.ts
import { createServer, type ServerResponse } from "node:http";
import Database from "better-sqlite3";
import pg from "pg";

const SQL = `SELECT * FROM "Restaurant" WHERE "id" = `;
const url = process.env.DATABASE_URL ?? "file:./data/gateway.db";

/** One function per driver: id -> row (or undefined). */
async function openReader(): Promise<{ read(id: string): Promise<unknown>; close(): Promise<void> }> {
  if (url.startsWith("file:")) {
    // The server's read settings (src/db/sqlite/driver.ts); the file is already in WAL mode.
    const db = new Database(url.replace(/^file:/, "").replace(/\?.*$/, ""), { fileMustExist: true });
    db.pragma("cache_size = -20000");
    const statement = db.prepare(`${SQL}?`);
    return { read: async (id) => statement.get(id), close: async () => void db.close() };
  }
  // The same pool size as the server's default (DB_POOL_SIZE=10).
  const pool = new pg.Pool({ connectionString: url, max: Number(process.env.DB_POOL_SIZE ?? 10) });
  return {
    read: async (id) => (await pool.query({ name: "restaurant-by-id", text: `${SQL}$1`, values: [id] })).rows[0],
    close: () => pool.end(),
  };
}

const reader = await openReader();
const send = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
};

const server = createServer((req, res) => {
  const match = /^\/restaurants\/([^/?]+)/.exec(req.url ?? "");
  if (req.url === "/healthz") return send(res, 200, { status: "ok" });
  if (!match) return send(res, 404, { error: "not found" });
  reader.read(decodeURIComponent(match[1]!)).then(
    (row) => (row ? send(res, 200, row) : send(res, 404, { error: "not found" })),
    (error: Error) => send(res, 500, { error: error.message }),
  );
});
server.keepAliveTimeout = 65_000;

const port = Number(process.env.PORT ?? 4101);
server.listen(port, process.env.HOST ?? "127.0.0.1", () =>
  console.log(`raw driver baseline listening at http://127.0.0.1:${port}`),
);
const stop = () => {
  server.close(() => void reader.close().then(() => process.exit(0)));
  server.closeAllConnections();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
