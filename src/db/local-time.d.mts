import type BetterSqlite3 from "better-sqlite3";
export function localTime(zone: unknown, epochMs: unknown): string | null;
export function registerLocalTime(db: BetterSqlite3.Database): void;
