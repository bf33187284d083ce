// A table's fingerprint: its row count and a checksum of its rows' canonical values. The checksum
// is the sum modulo 2^256 of each row's SHA-256, so it does not depend on the order rows are read
// in (SQLite and PostgreSQL sort text differently) and is computed in one pass, batch by batch.
// With a primary key no two rows are equal, so no pair can cancel out.
import { createHash, hash } from "node:crypto";
import { namesUpload, uploadColumnsOf } from "../storage/upload-references.ts";
import type { Canonical, DataConnection, TableSpec } from "./connection/data-connection.ts";
import { checkpoint } from "./interruption.ts";
import type { Progress } from "./progress.ts";
import { countRows, scanTable } from "./connection/rows.ts";

export type TableDigest = { rows: number; checksum: string };

const LANES = 8; // 8 x 32 bits = 256

/** An order-independent sum of row digests. */
export class RowSum {
  private readonly lanes = new Array<number>(LANES).fill(0);
  count = 0;

  add(row: Canonical[]): void {
    const digest = hash("sha256", JSON.stringify(row), "buffer");
    let carry = 0;
    for (let i = LANES - 1; i >= 0; i--) {
      const sum = this.lanes[i]! + digest.readUInt32BE(i * 4) + carry;
      this.lanes[i] = sum % 0x1_0000_0000;
      carry = sum >= 0x1_0000_0000 ? 1 : 0;
    }
    this.count++;
  }

  /** The table's checksum: the sum, bound to the table's name, columns and row count. */
  checksum(spec: TableSpec): string {
    const sum = this.lanes.map((lane) => lane.toString(16).padStart(8, "0")).join("");
    const columns = spec.columns.map((c) => `${c.name}:${c.type}`).join(",");
    return createHash("sha256").update(`${spec.name}\n${columns}\n${this.count}\n${sum}`).digest("hex");
  }
}

/**
 * Reads the whole table and returns its digest; `onRows` hears of each batch (progress, and
 * anything else a caller collects from the rows, such as the covers they name).
 */
export async function digestTable(
  conn: DataConnection,
  spec: TableSpec,
  onRows?: (rows: Canonical[][]) => void,
): Promise<TableDigest> {
  const sum = new RowSum();
  for await (const rows of scanTable(conn, spec)) {
    checkpoint();
    for (const row of rows) sum.add(row);
    onRows?.(rows);
  }
  return { rows: sum.count, checksum: sum.checksum(spec) };
}

export type TableFingerprint = TableSpec & TableDigest;

/**
 * Digests every table (in one snapshot, when the caller holds one) and collects the upload
 * files their rows name (src/storage/upload-references.ts).
 */
export async function fingerprint(
  conn: DataConnection,
  specs: TableSpec[],
  progress: Progress,
): Promise<{ tables: TableFingerprint[]; covers: Set<string> }> {
  const totals: number[] = [];
  for (const spec of specs) totals.push(await countRows(conn, spec.name)); // one query at a time on a connection
  progress.phase(
    "checksums",
    totals.reduce((a, b) => a + b, 0),
    "rows",
  );
  const covers = new Set<string>();
  const tables: TableFingerprint[] = [];
  for (const spec of specs) {
    const coverColumns = uploadColumnsOf(spec.name)
      .map((name) => spec.columns.findIndex((c) => c.name === name))
      .filter((i) => i >= 0);
    const digest = await digestTable(conn, spec, (rows) => {
      for (const row of rows) for (const i of coverColumns) if (namesUpload(row[i])) covers.add(row[i]);
      progress.advance(rows.length);
    });
    tables.push({ ...spec, ...digest });
  }
  return { tables, covers };
}
