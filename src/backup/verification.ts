// The verification report that ends restore and copy-data: per table, the row count and checksum
// expected (the backup's manifest, or the copy's source) against what the target now holds; the
// covers; on SQLite, the foreign keys. Any difference makes the command exit non-zero.
import type { TableDigest, TableFingerprint } from "./checksums.ts";

export type TableCheck = { name: string; expected: TableDigest; actual: TableDigest; match: boolean };
/**
 * `dangling`: names the rows refer to that no cover answered already at the snapshot (the
 * source's own dangling references: reported apart, not a difference).
 */
export type CoverCheck = {
  expected: number;
  present: number;
  missing: string[];
  differing: string[];
  dangling?: number;
};

export type Verification = {
  tables: TableCheck[];
  covers?: CoverCheck;
  /** Rows whose foreign key names no row (SQLite's `PRAGMA foreign_key_check`; PostgreSQL enforces them always). */
  foreignKeyViolations?: number;
  ok: boolean;
};

/** Refused after the fact: the target does not hold what it should (exit code 1). */
export class VerificationFailed extends Error {
  constructor(
    message: string,
    readonly verification: Verification,
  ) {
    super(message);
  }
}

export function compare(
  expected: TableFingerprint[],
  actual: TableFingerprint[],
  covers?: CoverCheck,
  foreignKeyViolations?: number,
): Verification {
  const tables = expected.map((e) => {
    const a = actual.find((t) => t.name === e.name) ?? { rows: 0, checksum: "(no such table)" };
    const digest = (t: TableDigest) => ({ rows: t.rows, checksum: t.checksum });
    return {
      name: e.name,
      expected: digest(e),
      actual: digest(a),
      match: e.rows === a.rows && e.checksum === a.checksum,
    };
  });
  const coversOk = !covers || (covers.missing.length === 0 && covers.differing.length === 0);
  return {
    tables,
    covers,
    foreignKeyViolations,
    ok: tables.every((t) => t.match) && coversOk && !foreignKeyViolations,
  };
}

const short = (checksum: string) => checksum.slice(0, 12);

/** The report as aligned text lines (for a terminal). */
export function reportLines(v: Verification, labels: { expected: string; actual: string }): string[] {
  const width = Math.max(6, ...v.tables.map((t) => t.name.length));
  const lines = [`${"table".padEnd(width)}  ${labels.expected.padStart(12)}  ${labels.actual.padStart(12)}  checksum`];
  for (const t of v.tables) {
    const sum = t.match
      ? `${short(t.actual.checksum)} ok`
      : `${short(t.expected.checksum)} != ${short(t.actual.checksum)} DIFFERENT`;
    lines.push(
      `${t.name.padEnd(width)}  ${t.expected.rows.toLocaleString("en").padStart(12)}  ${t.actual.rows.toLocaleString("en").padStart(12)}  ${sum}`,
    );
  }
  if (v.covers) {
    const c = v.covers;
    const state =
      (c.missing.length || c.differing.length ? `${c.missing.length} missing, ${c.differing.length} different` : "ok") +
      (c.dangling ? ` (${c.dangling} dangling: named by rows, missing from the source already at the snapshot)` : "");
    lines.push(
      `${"covers".padEnd(width)}  ${c.expected.toLocaleString("en").padStart(12)}  ${c.present.toLocaleString("en").padStart(12)}  ${state}`,
    );
  }
  if (v.foreignKeyViolations !== undefined)
    lines.push(
      `foreign keys: ${v.foreignKeyViolations ? `${v.foreignKeyViolations} rows refer to missing rows` : "ok"}`,
    );
  return lines;
}

/** The report as JSON: per table { expected, actual, match }. */
export function reportJson(v: Verification) {
  return {
    ok: v.ok,
    tables: Object.fromEntries(
      v.tables.map((t) => [t.name, { expected: t.expected, actual: t.actual, match: t.match }]),
    ),
    ...(v.covers ? { covers: v.covers } : {}),
    ...(v.foreignKeyViolations !== undefined ? { foreignKeyViolations: v.foreignKeyViolations } : {}),
  };
}

/** One line naming what differs. */
export function differences(v: Verification): string {
  const parts = v.tables
    .filter((t) => !t.match)
    .map(
      (t) =>
        `${t.name} (${t.expected.rows} rows expected, ${t.actual.rows} found${t.expected.rows === t.actual.rows ? ", contents differ" : ""})`,
    );
  if (v.covers?.missing.length) parts.push(`${v.covers.missing.length} covers missing`);
  if (v.covers?.differing.length) parts.push(`${v.covers.differing.length} covers differ`);
  if (v.foreignKeyViolations) parts.push(`${v.foreignKeyViolations} rows break foreign keys`);
  return parts.join(", ");
}
