// Seeding progress on a stream (stderr): a redrawn bar on a terminal, a plain line every 10%
// otherwise (CI logs, pipes), so logs stay short and terminals stay lively.
import type { SeedProgress } from "./seed.ts";

type Output = { write(text: string): unknown; isTTY?: boolean; columns?: number };

const REDRAW_MS = 100;

export function progressPrinter(output: Output): (progress: SeedProgress) => void {
  let lastDraw = 0;
  let lastTenth = -1;
  return ({ phase, done, total }) => {
    const fraction = total ? Math.min(1, done / total) : 1;
    const percent = Math.floor(fraction * 100);
    const finished = done >= total;
    if (!output.isTTY) {
      const tenth = Math.floor(fraction * 10);
      if (tenth > lastTenth) {
        lastTenth = tenth;
        output.write(`seeding: ${percent}% (${done}/${total}, ${phase})\n`);
      }
      return;
    }
    const now = Date.now();
    if (!finished && now - lastDraw < REDRAW_MS) return;
    lastDraw = now;
    const width = Math.max(10, Math.min(40, (output.columns ?? 80) - 40));
    const filled = Math.round(fraction * width);
    const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
    output.write(
      `\r[${bar}] ${String(percent).padStart(3)}% ${phase.padEnd(11)} ${done}/${total}${finished ? "\n" : ""}`,
    );
  };
}
