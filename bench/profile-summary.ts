// `node --import tsx bench/profile-summary.ts FILE.cpuprofile [--top N]`: where a server profiled
// with `npm run bench -- --cpu-prof` spent its CPU: time by package (self time), and the functions
// with the most self and inclusive time (a function counted once per sample, however deep it
// recurses). Idle time is left out of the shares, so they are shares of the busy time.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

/** Which package (or part of Node, or of this repo) a frame belongs to. */
function ownerOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/g;
  let last: string | undefined;
  for (const m of url.matchAll(modules)) last = m[1];
  if (last) return last;
  if (url.startsWith("node:")) return "node (core)";
  const repo = /\/(src|bench|generated)\/(.*)$/.exec(url);
  if (repo) return repo[1] === "src" ? `src/${repo[2]!.split("/").slice(0, -1).join("/") || "."}` : repo[1]!;
  return url;
}

const where = (f: CallFrame) => {
  const file = f.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(src|bench|generated)\//, "$1/");
  return `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`;
};

function summarise(profile: Profile, top: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const packages = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === "(idle)") {
      idle += ms;
      return;
    }
    busy += ms;
    const key = where(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + ms);
    const owner = ownerOf(node.callFrame);
    packages.set(owner, (packages.get(owner) ?? 0) + ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const k = where(byId.get(at)!.callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + ms);
    }
  });
  const pct = (ms: number) => `${((ms / busy) * 100).toFixed(1).padStart(5)}%`;
  const list = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, ms]) => `  ${pct(ms)} ${ms.toFixed(0).padStart(7)} ms  ${k}`);
  return [
    `busy ${busy.toFixed(0)} ms, idle ${idle.toFixed(0)} ms over ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s`,
    "",
    "Self time by package:",
    ...list(packages, top),
    "",
    "Functions by self time:",
    ...list(self, top),
    "",
    "Functions by inclusive time:",
    ...list(inclusive, top * 2),
  ].join("\n");
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "25" } },
});
if (!positionals.length) {
  console.error("Usage: node --import tsx bench/profile-summary.ts FILE.cpuprofile [--top N]");
  process.exit(2);
}
for (const file of positionals) {
  console.log(`== ${file}\n${summarise(JSON.parse(readFileSync(file, "utf8")) as Profile, Number(values.top))}\n`);
}
