// A value as either database returns it, in one canonical form (the same on SQLite and
// PostgreSQL, so checksums agree across them), and back in the form each database stores:
//   datetime  SQLite keeps Prisma's text "2026-01-02T03:04:05.678+00:00"; PostgreSQL timestamp(3)
//             is read as its text "2026-01-02 03:04:05.678", UTC by Prisma's convention.
//             Canonical: ISO-8601 in UTC with milliseconds ("...Z").
//   bool      SQLite 0/1, PostgreSQL true/false. Canonical: true/false.
//   int       SQLite reads integers as bigint here (safeIntegers, so bigint columns stay exact). Canonical: number.
//   bigint    Canonical: decimal text.
//   float     Canonical: the number (JSON prints the shortest text that reads back as the same double).
//   bytes     Canonical: base64.
//   json      SQLite text, PostgreSQL jsonb text (keys reordered). Canonical: keys sorted, no spaces.
import type { Canonical, ColumnType } from "./data-connection.ts";

export function canonical(type: ColumnType, value: unknown): Canonical {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "text":
      return String(value);
    case "int":
    case "float":
      return Number(value);
    case "bigint":
      return String(value);
    case "bool":
      return value === true || value === 1 || value === 1n || value === "1" || value === "t" || value === "true";
    case "datetime":
      return isoDate(value);
    case "bytes":
      return Buffer.from(value as Uint8Array).toString("base64");
    case "json":
      return stableJson(JSON.parse(String(value)));
  }
}

/** How one database stores the values whose stored form differs between databases. */
export type StoredForms = {
  bool(value: boolean): unknown;
  datetime(iso: string): unknown;
  bigint(decimal: string): unknown;
};

/** A canonical value in the form `forms` (one database's) stores for this column type. */
export function storable(forms: StoredForms, type: ColumnType, value: Canonical): unknown {
  if (value === null) return null;
  switch (type) {
    case "bool":
      return forms.bool(value as boolean);
    case "datetime":
      return forms.datetime(String(value));
    case "bigint":
      return forms.bigint(String(value));
    case "bytes":
      return Buffer.from(String(value), "base64");
    default:
      return value;
  }
}

const ZONELESS = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
/** The two forms nearly every value takes, read without a Date (a wide table has several per row). */
const PRISMA_SQLITE_TEXT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})\+00:00$/;
const POSTGRES_TEXT = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,3}))?$/;

function isoDate(value: unknown): string {
  if (typeof value === "string") {
    const sqlite = PRISMA_SQLITE_TEXT.exec(value);
    if (sqlite) return `${sqlite[1]}Z`;
    const postgres = POSTGRES_TEXT.exec(value);
    if (postgres) return `${postgres[1]}T${postgres[2]}.${(postgres[3] ?? "").padEnd(3, "0")}Z`;
  }
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "number" || typeof value === "bigint") return new Date(Number(value)).toISOString();
  const text = String(value).trim();
  // A zone-less text is UTC (PostgreSQL's timestamp, SQLite's CURRENT_TIMESTAMP).
  const ms = Date.parse(
    ZONELESS.test(text) ? `${text.replace(" ", "T")}Z` : /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text,
  );
  if (Number.isNaN(ms)) throw new Error(`"${text}" is not a date`);
  return new Date(ms).toISOString();
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
