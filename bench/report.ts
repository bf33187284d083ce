// The bench's results: the JSON written to bench/results/, the ratios the performance issue sets
// targets on, and the text table printed at the end.
import type { Measurement } from "./load.ts";
import type { Scenario } from "./scenarios.ts";

export type DatabaseName = "sqlite" | "postgres";

export type ScenarioResult = {
  /** The database behind it; null for the constant-resolver baseline, which has none. */
  database: DatabaseName | null;
  key: string;
  label: string;
  api: Scenario["api"];
  kind: Scenario["kind"];
  /** Why the scenario is not trustworthy (wrong first answer, errors under load); null when fine. */
  problem: string | null;
  measurement: Measurement | null;
};

export type PageSizeCheck = { database: DatabaseName; label: string; statements: Record<string, number> };

export type Ratio = {
  database: DatabaseName;
  label: string;
  value: number | null;
  /** The issue's target, e.g. ">= 0.90"; null when the line is for information. */
  target: string | null;
  met: boolean | null;
};

export type BenchReport = {
  date: string;
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string; platform: string };
  commit: string | null;
  settings: { quick: boolean; size: string; connections: number; durationSec: number; warmupSec: number; rounds: number; seed: Record<string, number> };
  results: ScenarioResult[];
  ratios: Ratio[];
  pageSizeChecks: PageSizeCheck[];
  /** Server memory (from its /metrics) before the first scenario and after each round of them. */
  memory: { database: DatabaseName; rssBeforeMb: number; rssAfterMb: number; rssAfterRoundsMb: number[]; heapAfterMb: number }[];
};

/** Reads at 50 connections should answer within this (issue 6). */
const P99_TARGET_MS = 50;

function find(results: ScenarioResult[], database: DatabaseName | null, key: string) {
  return results.find((r) => r.key === key && (r.database === database || r.database === null))?.measurement ?? null;
}

export function computeRatios(results: ScenarioResult[], scenarios: Scenario[], databases: DatabaseName[]): Ratio[] {
  const ratios: Ratio[] = [];
  const rate = (database: DatabaseName, key: string) => find(results, database, key)?.reqPerSec ?? null;
  const divide = (a: number | null, b: number | null) => (a !== null && b ? a / b : null);
  for (const database of databases) {
    for (const rest of scenarios.filter((s) => s.sameAs)) {
      const value = divide(rate(database, rest.key), rate(database, rest.sameAs!));
      ratios.push({ database, label: `${rest.label} / same GraphQL document`, value, target: ">= 0.90", met: value === null ? null : value >= 0.9 });
    }
    const ceiling = divide(rate(database, "gql.restaurant"), rate(database, "baseline.constant-apollo"));
    ratios.push({
      database,
      label: "GraphQL restaurant by id / constant-resolver ceiling",
      value: ceiling,
      target: database === "sqlite" ? ">= 0.50" : null,
      met: database === "sqlite" && ceiling !== null ? ceiling >= 0.5 : null,
    });
    ratios.push({
      database,
      label: "GraphQL restaurant by id / raw-driver floor",
      value: divide(rate(database, "gql.restaurant"), rate(database, "baseline.raw-driver")),
      target: null,
      met: null,
    });
    for (const s of scenarios.filter((x) => x.kind === "read" && x.target === "server")) {
      const p99 = find(results, database, s.key)?.latency.p99 ?? null;
      ratios.push({ database, label: `p99 ms, ${s.label}`, value: p99, target: `< ${P99_TARGET_MS}`, met: p99 === null ? null : p99 < P99_TARGET_MS });
    }
  }
  return ratios;
}

// ---- Text --------------------------------------------------------------------------------------

const fixed = (n: number | null | undefined, digits = 0) => (n === null || n === undefined ? "-" : n.toFixed(digits));

function table(rows: string[][], alignRight: boolean[]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) => r.map((cell, c) => (alignRight[c] ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join("  ").trimEnd())
    .join("\n");
}

function change(now: number | undefined, before: number | undefined): string {
  if (!now || !before) return "";
  const pct = ((now - before) / before) * 100;
  return `${pct >= 0 ? "+" : ""}${pct.toFixed(0)}%`;
}

export function formatReport(report: BenchReport, previous: BenchReport | null): string {
  const s = report.settings;
  const out: string[] = [
    `Bench ${report.date}${report.commit ? ` at ${report.commit.slice(0, 10)}` : ""}: ${report.machine.cpus} cores (${report.machine.cpuModel}), ` +
      `${report.machine.memoryGb} GB, Node ${report.machine.node}`,
    `${s.quick ? "QUICK mode, " : ""}seed ${s.size} (${Object.entries(s.seed).map(([k, v]) => `${v} ${k}`).join(", ")}); ` +
      `${s.connections} connections, keep-alive, ${s.warmupSec} s warm-up + ${s.durationSec} s measured per scenario` +
      (s.rounds > 1 ? `, ${s.rounds} rounds (figures from the last)` : ""),
  ];
  const previousRate = (r: ScenarioResult) =>
    previous?.results.find((p) => p.key === r.key && p.database === r.database)?.measurement?.reqPerSec;
  const header = ["database", "scenario", "req/s", "p50 ms", "p99 ms", "SQL/req", "(1 at a time)", "failed", ...(previous ? ["vs prev"] : [])];
  const rows = report.results.map((r) => {
    const m = r.measurement;
    const failed = m ? m.errors + m.timeouts + m.non2xx + m.mismatches : 0;
    return [
      r.database ?? "(none)",
      r.label,
      fixed(m?.reqPerSec),
      fixed(m?.latency.p50, 1),
      fixed(m?.latency.p99, 1),
      fixed(m?.statementsPerRequest, 1),
      fixed(m?.statementsOneAtATime, 1),
      r.problem ? "ERROR" : String(failed),
      ...(previous ? [change(m?.reqPerSec, previousRate(r))] : []),
    ];
  });
  out.push("", table([header, ...rows], [false, false, true, true, true, true, true, true, true]));

  const problems = report.results.filter((r) => r.problem);
  if (problems.length) out.push("", "Problems:", ...problems.map((r) => `  ${r.database ?? "-"} ${r.key}: ${r.problem}`));

  out.push(
    "",
    table(
      [
        ["database", "ratio / target", "value", "target", ""],
        ...report.ratios.filter((r) => r.value !== null).map((r) => [
          r.database,
          r.label,
          fixed(r.value, r.label.startsWith("p99") ? 1 : 2),
          r.target ?? "",
          r.met === null ? "" : r.met ? "met" : "NOT MET",
        ]),
      ],
      [false, false, true, false, false],
    ),
  );

  if (report.pageSizeChecks.length) {
    out.push("", "SQL statements for one request by page size (constant = no N+1):");
    for (const c of report.pageSizeChecks) {
      const values = Object.entries(c.statements).map(([page, n]) => `first ${page}: ${n}`).join(", ");
      const constant = new Set(Object.values(c.statements)).size === 1;
      out.push(`  ${c.database} ${c.label}: ${values}${constant ? "" : "  <- grows with the page"}`);
    }
  }
  if (report.memory.length) {
    out.push("", "Server memory:");
    for (const m of report.memory) {
      const rounds = m.rssAfterRoundsMb.length > 1 ? ` (after each round: ${m.rssAfterRoundsMb.map((r) => r.toFixed(0)).join(", ")} MB)` : "";
      out.push(
        `  ${m.database}: RSS ${m.rssBeforeMb.toFixed(0)} MB before the scenarios, ${m.rssAfterMb.toFixed(0)} MB after${rounds}; heap used ${m.heapAfterMb.toFixed(0)} MB`,
      );
    }
  }
  return out.join("\n");
}
