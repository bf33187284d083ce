// Plain-text tables for the terminal: a header, a rule, one line per row, columns padded to the
// widest cell; long cells are cut with "…" so a row stays on one line.

export type Column = { header: string; max?: number };

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

function cut(text: string, max: number | undefined): string {
  return max !== undefined && text.length > max ? `${text.slice(0, Math.max(1, max - 1))}…` : text;
}

export function formatTable(columns: Column[], rows: string[][]): string {
  const cells = rows.map((row) => row.map((cell, i) => cut(oneLine(cell), columns[i]?.max)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.header)), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}

/** "2026-03-01 14:05" (UTC), the way the tables show times. */
export const shortTime = (date: Date | null | undefined) =>
  date ? date.toISOString().slice(0, 16).replace("T", " ") : "";
