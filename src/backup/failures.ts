// How a data command reports a failure after it started changing things: one line with the cause
// (a full disk said plainly, whichever layer noticed it: Node, SQLite or pg_dump; an interruption
// as such, whatever it broke on the way) and what became of the partial output.
import { interruptedBy } from "./interruption.ts";

const DISK_FULL_CODES = new Set(["ENOSPC", "EDQUOT", "SQLITE_FULL"]);

export function isDiskFull(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return (
    DISK_FULL_CODES.has(e?.code ?? "") || /no space left|disk is full|could not extend file/i.test(String(e?.message))
  );
}

/** The error to throw: "<cause>; <aftermath>". */
export function failedWith(error: unknown, aftermath: string): Error {
  const signal = interruptedBy();
  if (signal) return new Error(`interrupted by ${signal}; ${aftermath}`);
  const first = String((error as Error)?.message ?? error).split("\n")[0]!;
  return new Error(isDiskFull(error) ? `the disk is full (${first}); ${aftermath}` : `${first}; ${aftermath}`);
}
