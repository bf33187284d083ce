// The bench's results: the JSON written to bench/results/, the ratios the performance issue sets
// targets on, and the text table printed at the end.
import type { Dialect } from "../src/db/dialect.ts";
import type { Measurement, RateLatency } from "./load.ts";
import type { Scenario } from "./scenarios.ts";
import { formatFanout, type FanoutResult } from "./fanout.ts";

export type DatabaseName = Dialect;

export type ScenarioResult = {
  /** The database behind it; null for the constant-resolver baseline, which has none. */
  database: DatabaseName | null;
  key: string;
  label: string;
  api: Scenario["api"];
  kind: Scenario["kind"];
  /** Why the scenario is not trustworthy (wrong first answer, errors under load); null when fine. */
  problem: string | null;
  /** The saturation run (for scenarios run in rounds, the round with the most req/s). */
  measurement: Measurement | null;
  /** Req/s of each round, for the scenarios run in alternating rounds with the peer. */
  rounds?: number[];
  /** For a peer scenario: the service's scenario it is compared with. */
  peerOf?: string;
  /** Latency at half the saturation rate (reads only; the SLO). */
  slo?: RateLatency | null;
  /** With --sustained: the highest steady rate found kept up with under the SLO, and its p99 (null: none). */
  sustained?: { rate: number; p99: number } | null;
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
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    node: string;
    platform: string;
    /** os.loadavg() (1, 5, 15 minutes) when the run started and when it ended: other work on the machine. */
    loadAverage: { start: number[]; end: number[] };
  };
  commit: string | null;
  settings: {
    quick: boolean;
    size: string;
    connections: number;
    durationSec: number;
    warmupSec: number;
    rounds: number;
    /** Alternating rounds of the service and the peer on the compared scenarios. */
    peerRounds: number;
    /** The peer, e.g. "PostGraphile 5.1.5 on Node v24.21.0"; null when not run. */
    peer: string | null;
    /** Seconds of each fixed-rate run for the latency SLO; 0 when skipped. */
    sloDurationSec: number;
    /** Fixed-rate runs per read (the median p99 is reported); absent in reports from before. */
    sloRounds?: number;
    /** --slo-rate: one fixed rate for every scenario's SLO runs (else half its saturation rate). */
    sloRate?: number;
    /** Seconds at the fixed rate, unmeasured, before those runs; absent in reports from before. */
    sloSettleSec?: number;
    seed: Record<string, number>;
  };
  results: ScenarioResult[];
  /** The same scenarios against the --before server (another checkout), from the same run; empty without it. */
  before: ScenarioResult[];
  ratios: Ratio[];
  pageSizeChecks: PageSizeCheck[];
  /** Server memory (from its /metrics) before the first scenario and after each round of them. */
  memory: {
    database: DatabaseName;
    rssBeforeMb: number;
    rssAfterMb: number;
    rssAfterRoundsMb: number[];
    heapAfterMb: number;
  }[];
  /** The fan-out scenario (live.fanout), per database; absent in reports from before it existed. */
  fanout: FanoutResult[];
};

/** Every scenario should answer within this at half the saturation rate (issue 16's SLO; worst of the rounds since issue 33). */
export const P99_TARGET_MS = 50;
/** This service against PostGraphile (issue 33): reads at least 1.5 times its req/s, writes at least as many. */
export const PEER_TARGETS = { read: 1.5, write: 1.0 } as const;
/** The share of the saturation rate the SLO's latency is measured at. */
export const SLO_RATE_SHARE = 0.5;

function find(results: ScenarioResult[], database: DatabaseName | null, key: string) {
  return results.find((r) => r.key === key && (r.database === database || r.database === null))?.measurement ?? null;
}

export function computeRatios(
  results: ScenarioResult[],
  scenarios: Scenario[],
  peerScenarios: Scenario[],
  databases: DatabaseName[],
  sloRateGiven = false,
): Ratio[] {
  const ratios: Ratio[] = [];
  const rate = (database: DatabaseName, key: string) => find(results, database, key)?.reqPerSec ?? null;
  const divide = (a: number | null, b: number | null) => (a !== null && b ? a / b : null);
  for (const database of databases) {
    for (const rest of scenarios.filter((s) => s.sameAs)) {
      const value = divide(rate(database, rest.key), rate(database, rest.sameAs!));
      ratios.push({
        database,
        label: `${rest.label} / same GraphQL document`,
        value,
        target: ">= 0.90",
        met: value === null ? null : value >= 0.9,
      });
    }
    for (const [post, get, what] of [
      ["gql.restaurant", "gql.restaurant.persisted-get", "restaurant by id"],
      ["gql.search", "gql.search.persisted-get", "restaurants page"],
    ]) {
      ratios.push({
        database,
        label: `GraphQL ${what}: persisted GET (hash alone) / POST (text)`,
        value: divide(rate(database, get), rate(database, post)),
        target: null,
        met: null,
      });
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
    for (const peer of peerScenarios.filter((p) => p.peerOf)) {
      const value = divide(
        rate(database, peer.peerOf!),
        results.find((r) => r.key === peer.key && r.database === database)?.measurement?.reqPerSec ?? null,
      );
      if (value === null) continue;
      const ours = scenarios.find((s) => s.key === peer.peerOf)?.label ?? peer.peerOf!;
      const target = PEER_TARGETS[peer.kind];
      ratios.push({
        database,
        label: `${ours} / ${peer.label}`,
        value,
        target: `>= ${target.toFixed(2)}`,
        met: value >= target,
      });
    }
    for (const s of scenarios.filter((x) => x.target === "server")) {
      const slo = results.find((r) => r.key === s.key && r.database === database)?.slo ?? null;
      if (!slo) continue;
      ratios.push({
        database,
        label:
          `p99 ms at ${slo.rate} req/s (${sloRateGiven ? "the rate given" : "half saturation"}, steady arrivals${slo.p99Rounds && slo.p99Rounds.length > 1 ? `, worst of ${slo.p99Rounds.join(" / ")}` : ""}` +
          `${slo.stallRounds ? `; server's event loop stalled up to ${slo.stallRounds.join(" / ")} ms` : ""}), ${s.label}`,
        value: slo.p99,
        target: `< ${P99_TARGET_MS}`,
        met: slo.p99 < P99_TARGET_MS && slo.failed === 0,
      });
      if (slo.bursts) {
        ratios.push({
          database,
          label: `p99 ms at ${slo.rate} req/s in autocannon's bursts, ${s.label}`,
          value: slo.bursts.p99,
          target: null,
          met: null,
        });
      }
    }
  }
  return ratios;
}

// ---- Text --------------------------------------------------------------------------------------

const fixed = (n: number | null | undefined, digits = 0) => (n === null || n === undefined ? "-" : n.toFixed(digits));

function table(rows: string[][], alignRight: boolean[]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, c) => (alignRight[c] ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
        .join("  ")
        .trimEnd(),
    )
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
      `${report.machine.memoryGb} GB, Node ${report.machine.node}; load average ${report.machine.loadAverage.start.map((n) => n.toFixed(2)).join(" ")} at the start, ` +
      `${report.machine.loadAverage.end.map((n) => n.toFixed(2)).join(" ")} at the end`,
    `${s.quick ? "QUICK mode, " : ""}seed ${s.size} (${Object.entries(s.seed)
      .map(([k, v]) => `${v} ${k}`)
      .join(", ")}); ` +
      `${s.connections} connections, keep-alive, ${s.warmupSec} s warm-up + ${s.durationSec} s measured per scenario` +
      (s.rounds > 1 ? `, ${s.rounds} rounds (figures from the last)` : ""),
  ];
  const previousRate = (r: ScenarioResult) =>
    previous?.results.find((p) => p.key === r.key && p.database === r.database)?.measurement?.reqPerSec;
  const header = [
    "database",
    "scenario",
    "req/s",
    "p50 ms",
    "CPU ms/req",
    "DB CPU",
    "SQL/req",
    "(1 at a time)",
    "failed",
    "SLO rate",
    "p99 ms",
    "(bursts)",
    ...(previous ? ["vs prev"] : []),
  ];
  const rows = report.results.map((r) => {
    const m = r.measurement;
    const failed = m ? m.errors + m.timeouts + m.non2xx + m.mismatches : 0;
    return [
      r.database ?? "(none)",
      r.label,
      fixed(m?.reqPerSec),
      fixed(m?.latency.p50, 1),
      fixed(m?.cpuMsPerRequest, 2),
      fixed(m?.databaseCpuMsPerRequest, 2),
      fixed(m?.statementsPerRequest, 1),
      fixed(m?.statementsOneAtATime, 1),
      r.problem ? "ERROR" : String(failed),
      r.slo ? `${r.slo.rate}${r.slo.achieved < r.slo.rate * 0.97 ? ` (got ${r.slo.achieved.toFixed(0)})` : ""}` : "-",
      r.slo ? `${r.slo.p99.toFixed(1)}${r.slo.failed ? ` (${r.slo.failed} failed)` : ""}` : "-",
      r.slo?.bursts
        ? `${r.slo.bursts.p99.toFixed(1)}${r.slo.bursts.failed ? ` (${r.slo.bursts.failed} failed)` : ""}`
        : "-",
      ...(previous ? [change(m?.reqPerSec, previousRate(r))] : []),
    ];
  });
  out.push(
    "",
    table([header, ...rows], [false, false, true, true, true, true, true, true, true, true, true, true, true]),
    `(req/s and p50 at saturation, ${s.connections} connections; "CPU ms/req": the server process's own CPU time per answer ` +
      `(not the database's), which other load on the machine disturbs less than req/s; "DB CPU": the same for the bench's PostgreSQL server (postmaster and backends) on this machine; "p99 ms" at the fixed "SLO rate" of ` +
      `${s.sloRate ? `${s.sloRate} req/s (--slo-rate)` : `${SLO_RATE_SHARE * 100}% of that req/s`} with steady arrivals, timed from when each request was due, the worst of ${s.sloRounds ?? 1} runs` +
      `${s.sloSettleSec ? ` after ${s.sloSettleSec} s at that rate unmeasured` : ""}, target < ${P99_TARGET_MS} ms; ` +
      `"(bursts)": the same rate through autocannon's overallRate, which sends each second's requests at once at its start)`,
  );

  const peered = report.results.filter((r) => r.api === "peer" && r.rounds);
  if (peered.length) {
    out.push(
      "",
      `Peer baseline: ${s.peer}, same database, alternating ${s.peerRounds} rounds each (req/s per round; best round compared):`,
    );
    const perRound = (r: ScenarioResult | undefined) => r?.rounds?.map((n) => n.toFixed(0)).join(", ") ?? "-";
    const rows = peered.map((peer) => {
      const ours = report.results.find((r) => r.database === peer.database && r.key === peer.peerOf);
      const ratio =
        ours?.measurement && peer.measurement ? ours.measurement.reqPerSec / peer.measurement.reqPerSec : null;
      const cpu = (r: ScenarioResult | undefined) => fixed(r?.measurement?.cpuMsPerRequest, 2);
      const databaseCpu = (r: ScenarioResult | undefined) => fixed(r?.measurement?.databaseCpuMsPerRequest, 2);
      return [
        peer.database ?? "-",
        ours?.label ?? peer.peerOf ?? "-",
        perRound(ours),
        perRound(peer),
        fixed(ratio, 2),
        ratio === null
          ? ""
          : `${ratio >= PEER_TARGETS[peer.kind] ? "met" : "NOT MET"} (>= ${PEER_TARGETS[peer.kind].toFixed(2)})`,
        cpu(ours),
        cpu(peer),
        databaseCpu(ours),
        databaseCpu(peer),
      ];
    });
    out.push(
      table(
        [
          [
            "database",
            "scenario",
            "this service",
            "peer",
            "ratio",
            "target",
            "CPU ms/req ours",
            "peer's",
            "DB CPU ours",
            "peer's",
          ],
          ...rows,
        ],
        [false, false, true, true, true, false, true, true, true, true],
      ),
    );
  }

  const problems = report.results.filter((r) => r.problem);
  if (problems.length)
    out.push("", "Problems:", ...problems.map((r) => `  ${r.database ?? "-"} ${r.key}: ${r.problem}`));

  out.push(
    "",
    table(
      [
        ["database", "ratio / target", "value", "target", ""],
        ...report.ratios
          .filter((r) => r.value !== null)
          .map((r) => [
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
      const values = Object.entries(c.statements)
        .map(([page, n]) => `first ${page}: ${n}`)
        .join(", ");
      const constant = new Set(Object.values(c.statements)).size === 1;
      out.push(`  ${c.database} ${c.label}: ${values}${constant ? "" : "  <- grows with the page"}`);
    }
  }
  if (report.memory.length) {
    out.push("", "Server memory:");
    for (const m of report.memory) {
      const rounds =
        m.rssAfterRoundsMb.length > 1
          ? ` (after each round: ${m.rssAfterRoundsMb.map((r) => r.toFixed(0)).join(", ")} MB)`
          : "";
      out.push(
        `  ${m.database}: RSS ${m.rssBeforeMb.toFixed(0)} MB before the scenarios, ${m.rssAfterMb.toFixed(0)} MB after${rounds}; heap used ${m.heapAfterMb.toFixed(0)} MB`,
      );
    }
  }
  out.push(...formatFanout(report.fanout ?? []));
  out.push(...formatClosingTable(report));
  return out.join("\n");
}

/**
 * Issue 33's closing table: every scenario of this service with its ratio to PostGraphile, its
 * p99 at half saturation (worst round), its CPU per request in the server and the database; with
 * --before, each as "before -> after" from the same run.
 */
export function formatClosingTable(report: BenchReport): string[] {
  const ours = report.results.filter((r) => r.database && (r.api === "graphql" || r.api === "rest") && r.measurement);
  if (!ours.length) return [];
  const before = (r: ScenarioResult) => (report.before ?? []).find((b) => b.key === r.key && b.database === r.database);
  const peerOf = (r: ScenarioResult) =>
    report.results.find((p) => p.peerOf === r.key && p.database === r.database && p.measurement);
  const pair = (now: number | null | undefined, then: number | null | undefined, digits: number) =>
    then === undefined ? fixed(now, digits) : `${fixed(then, digits)} -> ${fixed(now, digits)}`;
  const hasBefore = (report.before ?? []).length > 0;
  const withSustained = report.results.some((r) => r.sustained !== undefined);
  const rows = ours.map((r) => {
    const b = before(r);
    const peer = peerOf(r);
    const ratio = (x: ScenarioResult | undefined) =>
      x?.measurement && peer?.measurement ? x.measurement.reqPerSec / peer.measurement.reqPerSec : null;
    const target = peer ? PEER_TARGETS[r.kind] : null;
    const p99 = (x: ScenarioResult | undefined) => x?.slo?.p99 ?? null;
    return [
      r.database!,
      r.label,
      pair(r.measurement!.reqPerSec, b ? (b.measurement?.reqPerSec ?? null) : undefined, 0),
      peer
        ? `${pair(ratio(r), b ? ratio(b) : undefined, 2)} (>= ${target!.toFixed(1)}: ${ratio(r)! >= target! ? "met" : "NOT MET"})`
        : "-",
      r.slo
        ? `${pair(p99(r), b ? p99(b) : undefined, 1)} (< ${P99_TARGET_MS}: ${r.slo.p99 < P99_TARGET_MS && r.slo.failed === 0 ? "met" : "NOT MET"})`
        : "-",
      pair(r.measurement!.cpuMsPerRequest, b ? (b.measurement?.cpuMsPerRequest ?? null) : undefined, 2),
      pair(r.measurement!.databaseCpuMsPerRequest, b ? (b.measurement?.databaseCpuMsPerRequest ?? null) : undefined, 2),
      pair(r.measurement!.statementsOneAtATime, b ? (b.measurement?.statementsOneAtATime ?? null) : undefined, 1),
      ...(withSustained ? [sustainedCell(r, peer)] : []),
    ];
  });
  const arrow = hasBefore ? " (before -> after)" : "";
  return [
    "",
    `Closing table (issue 33)${hasBefore ? ": before is the --before checkout, run right after this one on the same database in this run" : ""}:`,
    table(
      [
        [
          "database",
          "scenario",
          `req/s${arrow}`,
          "ratio to PostGraphile",
          "p99 ms at half saturation (worst round)",
          "CPU ms/req server",
          "CPU ms/req database",
          "SQL/req",
          ...(withSustained ? [`sustained req/s (p99 < ${P99_TARGET_MS}), ours / peer's`] : []),
        ],
        ...rows,
      ],
      [false, false, true, false, false, true, true, true, ...(withSustained ? [false] : [])],
    ),
  ];
}

/** A scenario's sustained rate (--sustained) beside its peer's, with their ratio when both kept up. */
function sustainedCell(r: ScenarioResult, peer: ScenarioResult | undefined): string {
  const rate = (x: ScenarioResult | undefined) =>
    x?.sustained === undefined ? "-" : x.sustained === null ? "none" : String(x.sustained.rate);
  if (!peer) return rate(r);
  const ratio = r.sustained && peer.sustained ? ` (${(r.sustained.rate / peer.sustained.rate).toFixed(2)}x)` : "";
  return `${rate(r)} / ${rate(peer)}${ratio}`;
}
