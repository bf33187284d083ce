// The peer baseline's runtime: the Node that runs the bench (a supported line, 22 or later, as
// PostGraphile 5 needs), so the service and its peer run on the same Node. PostGraphile is installed
// from bench/peer/postgraphile/package-lock.json into its node_modules (git-ignored) on first use.
// Nothing of it touches the service's own install.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../processes.ts";

export const PEER_DIR = path.join(ROOT, "bench/peer/postgraphile");
export const PEER_SCRIPT = path.join(PEER_DIR, "server.mjs");

const run = (command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...options });

/** The folder of the bench's own Node runtime (its bin/node). */
export function nodeRuntime(): string {
  return path.dirname(path.dirname(process.execPath));
}

/** Whether every dependency of the peer's package.json is installed at its exact version. */
function peerInstalled(): boolean {
  const manifest = JSON.parse(readFileSync(path.join(PEER_DIR, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
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
