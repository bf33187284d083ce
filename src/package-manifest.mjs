// What package.json says that the code needs: the name and version (the start page, the OpenAPI
// document), the npm scripts, and the supported Node lines, `engines.node`: caret ranges joined by
// || ("^22.15.0 || ^24.0.0 || ^26.0.0"), read by `npm install`'s runtime step
// (scripts/node-runtime/install.mjs) and every entry point's guard (src/node-guard.ts). Plain
// JavaScript, so any Node can run it before anything else is ready.
import { readFileSync } from "node:fs";

const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

/** package.json's name, version, scripts and engines. */
export const packageManifest = manifest;

const ranges = manifest.engines.node.split("||").map((range) => {
  const match = /^\s*\^(\d+)\.(\d+)\.(\d+)\s*$/.exec(range);
  if (!match) throw new Error(`engines.node must be caret ranges joined by ||, not ${JSON.stringify(range)}`);
  return match.slice(1).map(Number);
});

/** For messages: "22, 24, 26". */
export const SUPPORTED_LINES = ranges.map(([major]) => major).join(", ");

/** Whether a Node version ("v22.15.0" or "22.15.0") is on a supported line. */
export function supportsNode(version) {
  const [major, minor, patch] = version.replace(/^v/, "").split(".").map(Number);
  return ranges.some(([M, m, p]) => major === M && (minor > m || (minor === m && patch >= p)));
}
