import type BetterSqlite3 from "better-sqlite3";
export function localTime(zone: unknown, epochMs: unknown): string | null;
export function openDuring(time: string, open: string, close: string): boolean;
export function openPattern(zone: unknown, epochMs: unknown, periods: unknown): 0 | 1;
export function registerLocalTime(db: BetterSqlite3.Database): void;
