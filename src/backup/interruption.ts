// Ctrl-C or SIGTERM during a data command: the signal becomes an error where the work next looks
// (`checkpoint`, called between files and batches; the PostgreSQL tools it runs are stopped at
// once), so the command undoes what it wrote the same way as after any failure and says so in one
// line: "interrupted by SIGTERM; the partial backup was removed". A second signal ends the process
// at once. The exit code is the signal's (130, 143).
import type { ChildProcess } from "node:child_process";

export class Interrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
  }
}

let caught: NodeJS.Signals | undefined;
const tools = new Set<ChildProcess>();

export const exitCodeOf = (signal: NodeJS.Signals) => (signal === "SIGINT" ? 130 : 143);

/** The signal that interrupted the command, if one did. */
export const interruptedBy = () => caught;

/** Throws Interrupted once a signal came. */
export function checkpoint(): void {
  if (caught) throw new Interrupted(caught);
}

/** A tool the command runs: stopped when a signal comes (its failure then surfaces as the interruption). */
export function stopOnInterrupt(child: ChildProcess): void {
  if (caught) child.kill("SIGTERM");
  tools.add(child);
  child.once("exit", () => tools.delete(child));
}

/** Runs a data command with Ctrl-C and SIGTERM turned into Interrupted. */
export async function interruptible<T>(work: () => Promise<T>): Promise<T> {
  const onSignal = (signal: NodeJS.Signals) => {
    if (caught) process.exit(exitCodeOf(signal));
    caught = signal;
    for (const child of tools) child.kill("SIGTERM");
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    return await work(); // finished before the signal took effect: done all the same
  } catch (error) {
    // Raised before the command wrote anything (a write phase reports its own aftermath).
    if (error instanceof Interrupted) throw new Error(`${error.message}; nothing was changed`);
    throw error;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
