// Prisma's PostgreSQL adapter, and a reader of the same pool once Prisma opened it, for
// src/db/reads.ts (raw reads that skip Prisma's query compiler).
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import type { DriverReader } from "./client.ts";

const TIMESTAMP = 1114; // Prisma's DateTime column: timestamp(3), no zone, written as UTC

/** pg's own parsers, except that a zone-less timestamp stays text (pg would read it in the process's zone). */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMP ? (text: string) => text : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

/** Statements named once are parsed and planned once per pooled connection (pg keeps them). */
const MAX_NAMED_STATEMENTS = 1000;

function statementNames() {
  const names = new Map<string, string>();
  return (sql: string) => {
    let name = names.get(sql);
    if (name === undefined && names.size < MAX_NAMED_STATEMENTS) names.set(sql, (name = `gw_read_${names.size}`));
    return name; // undefined past the cap: sent unnamed (parsed each time), never wrong
  };
}

export function postgresDriver(url: string, poolSize: number): { factory: SqlDriverAdapterFactory; readRows: DriverReader } {
  const inner = new PrismaPg({ connectionString: url, max: poolSize });
  let pool: pg.Pool | undefined;
  const factory = {
    provider: inner.provider,
    adapterName: inner.adapterName,
    async connect() {
      const adapter = await inner.connect();
      pool = (adapter as unknown as { client: pg.Pool }).client;
      return adapter;
    },
    connectToShadowDb: inner.connectToShadowDb.bind(inner),
  } as SqlDriverAdapterFactory;
  const nameOf = statementNames();
  const readRows: DriverReader = (sql, args) =>
    pool
      ?.query<unknown[]>({ name: nameOf(sql), text: sql, values: [...args], types, rowMode: "array" })
      .then((result) => ({ names: result.fields.map((field) => field.name), rows: result.rows }));
  return { factory, readRows };
}
