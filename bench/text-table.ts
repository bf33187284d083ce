// What the smaller bench scripts print at the end: a Markdown table, and the machine's load.
import os from "node:os";

/** The rows as a Markdown table, columns as wide as their widest cell. */
export function markdownTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
}

/** Other work on the machine during the run: the load average when it started and now. */
export function loadAverageLine(start: number[]): string {
  const format = (load: number[]) => load.map((l) => l.toFixed(2)).join(", ");
  return `Load average (1, 5, 15 min) at the start ${format(start)}, at the end ${format(os.loadavg())}.`;
}
