// Progress of a long data command. On a terminal: one line redrawn in place on stderr (phase, bar,
// counts). Anywhere else (a pipe, a log collector, cron) nothing: the command prints one JSON line
// with its result when it ends, and a log should not fill with redraws.
type Output = { write(text: string): unknown; isTTY?: boolean; columns?: number };

export type Progress = {
  /** Starts a phase: `total` units of `unit` (0 when unknown). */
  phase(name: string, total: number, unit: string): void;
  advance(units: number): void;
  /** Ends the current line (before a result or an error is printed). */
  end(): void;
};

const REDRAW_MS = 100;

export const silentProgress: Progress = { phase() {}, advance() {}, end() {} };

export function terminalProgress(output: Output): Progress {
  if (!output.isTTY) return silentProgress;
  let name = "";
  let unit = "";
  let total = 0;
  let done = 0;
  let lastDraw = 0;
  let drawn = false;
  const draw = (force = false) => {
    const now = Date.now();
    if (!force && now - lastDraw < REDRAW_MS) return;
    lastDraw = now;
    const width = Math.max(10, Math.min(30, (output.columns ?? 80) - 50));
    const fraction = total > 0 ? Math.min(1, done / total) : 0;
    const filled = Math.round(fraction * width);
    const bar =
      total > 0
        ? `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%`
        : "";
    const counts = !unit
      ? ""
      : total > 0
        ? `${done.toLocaleString("en")}/${total.toLocaleString("en")} ${unit}`
        : `${done.toLocaleString("en")} ${unit}`;
    output.write(`\r\x1b[K${name.padEnd(22)} ${bar} ${counts}`);
    drawn = true;
  };
  const end = () => {
    if (!drawn) return;
    draw(true);
    output.write("\n");
    drawn = false;
  };
  return {
    phase(nextName, nextTotal, nextUnit) {
      end();
      [name, total, unit, done] = [nextName, nextTotal, nextUnit, 0];
      draw(true);
    },
    advance(units) {
      done += units;
      draw();
    },
    end,
  };
}
