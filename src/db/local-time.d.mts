import type BetterSqlite3 from "better-sqlite3";
export function localTime(zone: unknown, epochMs: unknown): string | null;
export function openDuring(zone: unknown, epochMs: unknown, open: unknown, close: unknown): 0 | 1;
export function registerLocalTime(db: BetterSqlite3.Database): void;
