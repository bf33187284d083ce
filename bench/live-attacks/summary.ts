// Figures of the live-update attacks: what the sampler saw in each attack's window (RSS baseline
// and peak, /healthz percentiles), and the table over every run: medians with their ranges.
import { percentile } from "../paced.ts";
import type { Attack, Figures } from "./attacks.ts";
import type { Samples } from "./sampler.ts";

export type SampleSummary = {
  /** Median RSS over the baseline period before the attack (MiB). */
  baselineRssMb: number | null;
  /** Highest RSS from the attack's start to the end of its window (MiB). */
  peakRssMb: number | null;
  /** Last RSS of the window (MiB). */
  endRssMb: number | null;
  healthzP50Ms: number | null;
  healthzP99Ms: number | null;
  healthzMaxMs: number | null;
  /** /healthz requests due in the window, those that got no answer within the timeout, and those answered otherwise than 200. */
  healthzCount: number;
  healthzTimeouts: number;
  healthzFailed: number;
};

export const SAMPLE_LABELS: [keyof SampleSummary, string][] = [
  ["baselineRssMb", "RSS baseline (MB)"],
  ["peakRssMb", "RSS peak (MB)"],
  ["endRssMb", "RSS at the end of the window (MB)"],
  ["healthzP50Ms", "/healthz p50 (ms)"],
  ["healthzP99Ms", "/healthz p99 (ms)"],
  ["healthzMaxMs", "/healthz max (ms)"],
  ["healthzCount", "/healthz requests in the window"],
  ["healthzTimeouts", "/healthz timed out"],
  ["healthzFailed", "/healthz not 200 (timeouts included)"],
];

const round = (n: number) => Math.round(n);

/**
 * The samples of one attack: baseline from `baselineFrom` to `start`, the window from `start` to
 * `end` (the attack and the seconds after it). A /healthz request counts in the window it was due in.
 */
export function summarize(samples: Samples, baselineFrom: number, start: number, end: number): SampleSummary {
  const median = (values: number[]) =>
    values.length
      ? percentile(
          [...values].sort((a, b) => a - b),
          50,
        )
      : null;
  const baseline = samples.rss.filter((s) => s.at >= baselineFrom && s.at < start).map((s) => s.mb);
  const window = samples.rss.filter((s) => s.at >= start && s.at <= end);
  const health = samples.health.filter((s) => s.at >= start && s.at <= end);
  const latencies = health.map((s) => s.ms).sort((a, b) => a - b);
  return {
    baselineRssMb: median(baseline) ?? samples.rss.find((s) => s.at < start)?.mb ?? null,
    peakRssMb: window.length ? Math.max(...window.map((s) => s.mb)) : null,
    endRssMb: window.at(-1)?.mb ?? null,
    healthzP50Ms: latencies.length ? percentile(latencies, 50) : null,
    healthzP99Ms: latencies.length ? percentile(latencies, 99) : null,
    healthzMaxMs: latencies.length ? latencies.at(-1)! : null,
    healthzCount: health.length,
    healthzTimeouts: health.filter((s) => s.timedOut).length,
    healthzFailed: health.filter((s) => s.status !== 200).length,
  };
}

export type RunRecord = {
  attack: number;
  title: string;
  run: number;
  startedAt: string;
  /** Server settings beyond the harness's own. */
  serverEnv: Record<string, string>;
  figures: Figures;
  /** Why the attack could not run to its end, if it could not. */
  problem: string | null;
  /** The end of what the server wrote (LOG_LEVEL=warn: warnings and errors). */
  serverOutput: string;
};

/** "1,234" for numbers of 4 digits or more, whole from 100, else one decimal at most. */
function formatNumber(n: number): string {
  if (Math.abs(n) >= 1000) return round(n).toLocaleString("en-US");
  if (Number.isInteger(n) || Math.abs(n) >= 100) return String(round(n));
  return n.toFixed(1);
}

/** One figure over the runs: the value (one run), "median (min–max)" for numbers, distinct texts joined by " | ". */
export function combined(values: (number | string | null | undefined)[]): string {
  const present = values.filter((v): v is number | string => v !== null && v !== undefined);
  if (!present.length) return "n/a";
  if (present.every((v) => typeof v === "number")) {
    const sorted = [...(present as number[])].sort((a, b) => a - b);
    const mid =
      sorted.length % 2
        ? sorted[(sorted.length - 1) / 2]!
        : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
    if (sorted.length === 1 || sorted[0] === sorted.at(-1)) return formatNumber(mid);
    return `${formatNumber(mid)} (${formatNumber(sorted[0]!)}–${formatNumber(sorted.at(-1)!)})`;
  }
  return [...new Set(present.map(String))].join(" | ");
}

const pad = (text: string, width: number) => text.padEnd(width);

/** The table: one line of RSS and /healthz figures per attack, then every figure of each attack. */
export function formatTable(attacks: Attack[], records: RunRecord[]): string[] {
  const out: string[] = [];
  const rows = [["attack", "runs", "RSS base MB", "RSS peak MB", "/healthz p50 ms", "p99 ms", "max ms", "timed out"]];
  for (const attack of attacks) {
    const runs = records.filter((r) => r.attack === attack.n);
    if (!runs.length) continue;
    const cell = (key: string) => combined(runs.map((r) => r.figures[key]));
    rows.push([
      `${attack.n}`,
      `${runs.length}`,
      cell("baselineRssMb"),
      cell("peakRssMb"),
      cell("healthzP50Ms"),
      cell("healthzP99Ms"),
      cell("healthzMaxMs"),
      cell("healthzTimeouts"),
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)) + 2);
  for (const row of rows)
    out.push(
      row
        .map((c, i) => pad(c, widths[i]!))
        .join("")
        .trimEnd(),
    );
  for (const attack of attacks) {
    const runs = records.filter((r) => r.attack === attack.n);
    if (!runs.length) continue;
    out.push("", `${attack.n}. ${attack.title} (${runs.length} run${runs.length > 1 ? "s" : ""})`);
    const env = Object.entries(attack.env)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ");
    if (env) out.push(`   server settings: ${env}`);
    for (const [key, label] of [...SAMPLE_LABELS, ...attack.labels]) {
      out.push(`   ${pad(`${label}:`, 52)} ${combined(runs.map((r) => r.figures[key]))}`);
    }
    for (const r of runs) if (r.problem) out.push(`   PROBLEM in run ${r.run}: ${r.problem}`);
  }
  return out;
}
