// Reading a table, values canonical (values.ts), two ways:
// - readBatches: in primary-key order, each batch starting after the last key of the one before
//   (keyset paging: every batch is an index range, however far into the table), so a copy can
//   resume from the last key it committed;
// - scanTable: in the order the table is stored (a table scan: no index, no lookup per row, no
//   planner statistics needed, which a table pg_restore just loaded lacks), for the checksums,
//   whose sum does not depend on the order.
import { quoteName, type Canonical, type DataConnection, type TableSpec } from "./data-connection.ts";
import { canonical } from "./values.ts";

export type Batch = { rows: Canonical[][]; lastKey: Canonical[] };

/** Positions of the primary key's columns among the spec's columns. */
export const keyPositions = (spec: TableSpec) =>
  spec.primaryKey.map((name) => spec.columns.findIndex((c) => c.name === name));

export async function* readBatches(
  conn: DataConnection,
  spec: TableSpec,
  batchRows: number,
  after: Canonical[] | null = null,
): AsyncGenerator<Batch> {
  const keys = keyPositions(spec);
  const keyTypes = keys.map((i) => spec.columns[i]!.type);
  const list = (names: string[]) => names.map(quoteName).join(", ");
  const select = `SELECT ${list(spec.columns.map((c) => c.name))} FROM ${quoteName(spec.name)}`;
  const order = `ORDER BY ${list(spec.primaryKey)} LIMIT ${batchRows}`;
  const from = `${select} WHERE (${list(spec.primaryKey)}) > (${spec.primaryKey.map((_, i) => conn.placeholder(i)).join(", ")}) ${order}`;
  let last = after;
  for (;;) {
    const raw = last
      ? await conn.rows(
          from,
          last.map((v, i) => conn.storable(keyTypes[i]!, v)),
        )
      : await conn.rows(`${select} ${order}`);
    if (!raw.length) return;
    const rows = raw.map((row) => row.map((value, i) => canonical(spec.columns[i]!.type, value)));
    last = keys.map((i) => rows[rows.length - 1]![i]!);
    yield { rows, lastKey: last };
    if (raw.length < batchRows) return;
  }
}

export async function countRows(conn: DataConnection, table: string): Promise<number> {
  const [[count]] = (await conn.rows(`SELECT count(*) FROM ${quoteName(table)}`)) as [[unknown]];
  return Number(count);
}

export async function* scanTable(conn: DataConnection, spec: TableSpec): AsyncGenerator<Canonical[][]> {
  const sql = `SELECT ${spec.columns.map((c) => quoteName(c.name)).join(", ")} FROM ${quoteName(spec.name)}`;
  for await (const raw of conn.scan(sql, SCAN_ROWS))
    yield raw.map((row) => row.map((value, i) => canonical(spec.columns[i]!.type, value)));
}

const SCAN_ROWS = 2000;
