#!/usr/bin/env node
// Stand-in for Prisma's native `schema-engine` binary: speaks the same JSON-RPC over stdio that the
// Prisma 7 CLI uses, and runs the WebAssembly schema engine (@prisma/schema-engine-wasm) with a
// driver adapter (better-sqlite3 for file: URLs, pg for postgres URLs).
// Packages are resolved from this file's location (the project's node_modules); optional env overrides:
// SCHEMA_ENGINE_WASM_DIR (folder holding schema_engine_bg.js/.wasm), SHIM_NODE_MODULES_FROM (folder to resolve from).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import path from "node:path";

const ENGINE_HASH = "d1b3f377ca835d73fd50954a5e22128b9ebdd6b8";
const argv = process.argv.slice(2);
if (argv.includes("--version")) {
  process.stdout.write(`schema-engine-cli ${ENGINE_HASH} (wasm shim)\n`);
  process.exit(0);
}

const opt = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const datamodelPaths = argv.flatMap((a, i) => (a === "--datamodels" ? [argv[i + 1]] : []));
const datasource = opt("--datasource") ? JSON.parse(opt("--datasource")) : {};
const log = (level, message) =>
  process.stderr.write(
    JSON.stringify({
      timestamp: new Date().toISOString(),
      level,
      fields: { message },
      target: "schema_engine::logger",
    }) + "\n",
  );

const req = process.env.SHIM_NODE_MODULES_FROM
  ? createRequire(path.join(process.env.SHIM_NODE_MODULES_FROM, "/"))
  : createRequire(import.meta.url);
const { bindMigrationAwareSqlAdapterFactory } = req("@prisma/driver-adapter-utils");

function makeAdapter(url, shadowUrl) {
  if (!url || url.startsWith("file:") || url === ":memory:") {
    const m = req("@prisma/adapter-better-sqlite3");
    const A = m.PrismaBetterSqlite3;
    // The engine replays migrations into the shadow database with executeRaw, and better-sqlite3's
    // prepare() refuses multi-statement SQL (P3006 "External error id#0"): run argument-less SQL as a script.
    class ShimSqlite extends A {
      async connectToShadowDb() {
        const a = await super.connectToShadowDb();
        const executeRaw = a.executeRaw.bind(a);
        a.executeRaw = async (q) => (q.args.length === 0 ? (await a.executeScript(q.sql), 0) : executeRaw(q));
        return a;
      }
    }
    return new ShimSqlite({ url: url ?? ":memory:" }, shadowUrl ? { shadowDatabaseUrl: shadowUrl } : undefined);
  }
  if (/^postgres(ql)?:/.test(url)) {
    const { PrismaPg } = req("@prisma/adapter-pg");
    // adapter-pg's executeScript splits the script on every ";" (even inside comments and strings);
    // send the whole migration script in one simple-protocol query instead, as the native engine does.
    const wholeScript = (conn) => {
      conn.executeScript = async (script) => {
        try {
          await conn.underlyingDriver().query(script);
        } catch (e) {
          conn.onError(e);
        }
      };
      return conn;
    };
    // prisma/orm#27403: introspection reads pg_catalog columns typed name (19), "char" (18), name[] (1003)
    // that adapter-pg cannot map ("Column type 'char' could not be deserialized"): re-label them as text.
    const pg = req("pg");
    const RELABEL = { 19: 25, 18: 25, 1003: 1009, 1002: 1009 };
    const proto = pg.Result.prototype;
    if (!proto.__shimRelabel) {
      const orig = proto.addFields;
      proto.addFields = function (fields) {
        for (const f of fields) if (RELABEL[f.dataTypeID]) f.dataTypeID = RELABEL[f.dataTypeID];
        return orig.call(this, fields);
      };
      proto.__shimRelabel = true;
    }
    const cfg = (u) => {
      const x = new URL(u);
      return {
        host: x.hostname,
        port: Number(x.port || 5432),
        user: decodeURIComponent(x.username),
        password: decodeURIComponent(x.password),
        database: decodeURIComponent(x.pathname.slice(1)),
        allowExitOnIdle: true,
      };
    };
    class ShimPg extends PrismaPg {
      async connect() {
        return wholeScript(await super.connect());
      }
      // adapter-pg's own version spreads { connectionString, database } into a Pool: the connection string
      // wins, so the "shadow" pool is the main database. Create and drop a real throw-away database instead.
      async connectToShadowDb() {
        if (shadowUrl) return wholeScript(await new PrismaPg(cfg(shadowUrl)).connect());
        const admin = await this.connect();
        const name = `prisma_migrate_shadow_db_${globalThis.crypto.randomUUID()}`;
        await admin.executeScript(`CREATE DATABASE "${name}"`);
        const shadow = wholeScript(await new PrismaPg({ ...cfg(url), database: name }).connect());
        const dispose = shadow.dispose.bind(shadow);
        shadow.dispose = async () => {
          await dispose();
          await admin.executeScript(`DROP DATABASE IF EXISTS "${name}"`);
          await admin.dispose();
        };
        return shadow;
      }
    }
    return new ShimPg(cfg(url));
  }
  throw new Error(`wasm shim: unsupported datasource url ${url}`);
}

// `schema-engine cli <command>` (used by the CLI for can-connect / create-database checks)
if (argv.includes("cli")) {
  const cmd = argv[argv.indexOf("cli") + 1];
  try {
    const f = bindMigrationAwareSqlAdapterFactory(makeAdapter(datasource.url));
    const r = await f.connect();
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    await r.value.dispose?.();
    process.exit(0);
  } catch (e) {
    log("ERROR", `${cmd}: ${e.message}`);
    process.exit(1);
  }
}

globalThis.PRISMA_WASM_PANIC_REGISTRY ??= {
  message: "",
  set_message(m) {
    this.message = `RuntimeError: ${m}`;
  },
  get() {
    return this.message;
  },
};
const wasmDir =
  process.env.SCHEMA_ENGINE_WASM_DIR ?? path.dirname(req.resolve("@prisma/schema-engine-wasm/schema_engine_bg"));
const bg = await import(path.join(wasmDir, "schema_engine_bg.js"));
const instance = new WebAssembly.Instance(
  new WebAssembly.Module(readFileSync(path.join(wasmDir, "schema_engine_bg.wasm"))),
  { "./schema_engine_bg.js": bg },
);
bg.__wbg_set_wasm(instance.exports);
instance.exports.__wbindgen_start();

const datamodels = datamodelPaths.length ? datamodelPaths.map((p) => [p, readFileSync(p, "utf8")]) : undefined;
const debugCb = (m) => process.env.SHIM_DEBUG && log("DEBUG", m);
const newEngine = (adapterFactory) =>
  bg.SchemaEngine.new({ datamodels }, debugCb, bindMigrationAwareSqlAdapterFactory(adapterFactory));

// The wasm engine probes PostgreSQL's version when it starts, so even a schema-to-schema diff would need a
// server. When none is reachable, serve pure datamodel diffs from an engine whose adapter only answers
// that probe (the native engine needs no database for them either).
const { ColumnTypeEnum } = req("@prisma/driver-adapter-utils");
const noDb = () => {
  throw new Error("wasm shim: no database connection (offline datamodel diff only)");
};
function offlinePgFactory() {
  const adapter = {
    provider: "postgres",
    adapterName: "@prisma/adapter-pg",
    async queryRaw(q) {
      if (/server_version_num/.test(q.sql))
        return {
          columnNames: ["exists", "version", "numeric_version"],
          columnTypes: [ColumnTypeEnum.Boolean, ColumnTypeEnum.Text, ColumnTypeEnum.Int32],
          rows: [[true, "PostgreSQL 15.0 (offline stand-in)", 150000]],
        };
      noDb();
    },
    executeRaw: noDb,
    executeScript: noDb,
    startTransaction: noDb,
    getConnectionInfo: () => ({ supportsRelationJoins: true }),
    dispose: async () => {},
  };
  return {
    provider: "postgres",
    adapterName: "@prisma/adapter-pg",
    connect: async () => adapter,
    connectToShadowDb: noDb,
  };
}
const isPg = /^postgres(ql)?:/.test(datasource.url ?? "");
const pureDatamodelDiff = (method, params) =>
  method === "diff" && [params?.from?.tag, params?.to?.tag].every((t) => t === "empty" || t === "schemaDatamodel");
// Engines are made on first use. If the real one cannot start (e.g. the database does not exist), every
// request gets that error back: exiting instead leaves the CLI with a dead child, and it exits 0 having done nothing.
let realEngine, diffEngine;
async function engineFor(method, params) {
  if (pureDatamodelDiff(method, params)) {
    diffEngine ??= isPg
      ? newEngine(makeAdapter(datasource.url, datasource.shadowDatabaseUrl)).catch(() => newEngine(offlinePgFactory()))
      : newEngine(makeAdapter(":memory:")); // no database file is created for a schema-to-schema diff
    return diffEngine;
  }
  realEngine ??= newEngine(makeAdapter(datasource.url, datasource.shadowDatabaseUrl));
  return realEngine;
}

let printId = 1e9;
const send = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
const pending = new Set();
rl.on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (!msg.method) return; // replies to our `print` requests
  const p = (async () => {
    const { id, method, params } = msg;
    try {
      const engine = await engineFor(method, params);
      let result;
      if (method === "getDatabaseVersion" || method === "version") result = await engine.version(params ?? null);
      else if (typeof engine[method] !== "function")
        throw Object.assign(new Error(`wasm shim: method ${method} not supported`), { code: undefined });
      else result = await engine[method](params);
      if (method === "diff" && result) {
        // the native engine prints the diff through a `print` request
        const text = result.stdout ?? result.content;
        if (text)
          send({ jsonrpc: "2.0", id: printId++, method: "print", params: { content: text.replace(/\n$/, "") } });
        result = { exitCode: result.exitCode };
      }
      send({ jsonrpc: "2.0", id, result: result === undefined ? null : result });
    } catch (e) {
      const panic = e?.name === "RuntimeError";
      const message = panic ? globalThis.PRISMA_WASM_PANIC_REGISTRY.get() || String(e) : (e?.message ?? String(e));
      log("ERROR", message);
      send({
        jsonrpc: "2.0",
        id,
        error: {
          code: 4466,
          message: "An error happened. Check the data field for details.",
          data: { is_panic: panic, message, error_code: e?.code, meta: e?.meta ?? {} },
        },
      });
    }
  })();
  pending.add(p);
  p.finally(() => pending.delete(p));
});
rl.on("close", async () => {
  await Promise.allSettled([...pending]);
  process.exit(0);
});
