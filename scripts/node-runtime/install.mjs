// The first step of `npm install` (package.json's postinstall): this project's npm scripts must run
// on a supported Node line. When the Node that runs npm is one, nothing is installed and npm scripts
// run it. When it is not (the machines this project is developed on ship Node 20, past its end of
// life; better-sqlite3 13 crashes on it), this installs the Node of this folder's package.json from
// the npm registry (one package per platform, integrity pinned by its package-lock.json) into
// node_modules/.runtime and links it as node_modules/.bin/node, which npm puts first on PATH for
// every script (`npm start`, `npm test`, `npm run ...`) and for npx. Either way it says which Node
// runs. Plain JavaScript for any Node: it runs before anything else is ready.
// node_modules/.runtime/installed-for.json tells the start banner why that Node runs (src/http/runtime.ts).
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SUPPORTED_LINES as SUPPORTED, supportsNode as supports } from "../../src/package-manifest.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const prefix = path.join(root, "node_modules/.runtime");
const link = path.join(root, "node_modules/.bin/node");
const record = path.join(prefix, "installed-for.json");

/** The Node that runs npm (npm_node_execpath), not the first `node` on PATH: that may be ours. */
function systemNode() {
  const execPath = process.env.npm_node_execpath || process.execPath;
  const version =
    execPath === process.execPath
      ? process.version
      : execFileSync(execPath, ["--version"], { encoding: "utf8" }).trim();
  return { execPath, version };
}

/** Removes a runtime an earlier install left (the system's Node may have changed since). */
function removeInstalled() {
  let target = "";
  try {
    target = readlinkSync(link);
  } catch {
    // no link, or not a symbolic link: not ours
  }
  if (target.includes(`${path.sep}.runtime${path.sep}`)) rmSync(link);
  rmSync(prefix, { recursive: true, force: true });
}

/** npm ci of this folder into node_modules/.runtime, with the npm that runs this install. */
function installRuntime(system) {
  removeInstalled();
  mkdirSync(prefix, { recursive: true });
  for (const file of ["package.json", "package-lock.json"])
    copyFileSync(path.join(here, file), path.join(prefix, file));
  const npm = process.env.npm_execpath;
  const [command, first] = npm ? [system.execPath, [npm]] : ["npm", []];
  execFileSync(
    command,
    [
      ...first,
      "ci",
      "--prefix",
      prefix,
      "--include=optional",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
    ],
    {
      stdio: "inherit",
    },
  );
  // The one package npm installed for this platform (the others' os/cpu did not match).
  const modules = path.join(prefix, "node_modules");
  for (const name of existsSync(modules) ? readdirSync(modules) : []) {
    const manifest = path.join(modules, name, "package.json");
    if (!existsSync(manifest)) continue;
    const { version, bin } = JSON.parse(readFileSync(manifest, "utf8"));
    if (!bin?.node) continue;
    const binary = path.join(modules, name, bin.node);
    try {
      execFileSync(binary, ["--version"], { stdio: "ignore" }); // e.g. a glibc build on a musl system fails here
    } catch {
      return null;
    }
    // Headers (include/, ~70 MB) serve only to compile native addons against this Node: nothing here compiles.
    rmSync(path.join(modules, name, "include"), { recursive: true, force: true });
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(path.relative(path.dirname(link), binary), link);
    writeFileSync(
      record,
      JSON.stringify({ package: `${name}@${version}`, systemNode: system.version }, null, 2) + "\n",
    );
    return { name, version };
  }
  return null;
}

function main() {
  const system = systemNode();
  if (supports(system.version)) {
    removeInstalled();
    console.log(`node-runtime: npm scripts run this machine's Node ${system.version} (supported lines: ${SUPPORTED}).`);
    return;
  }
  if (process.platform === "win32") {
    console.error(
      `node-runtime: Node ${system.version} is not a supported line (${SUPPORTED}); install one of them and run npm install again.`,
    );
    process.exit(1);
  }
  console.log(
    `node-runtime: Node ${system.version} is not a supported line (${SUPPORTED}): installing one into node_modules/.runtime`,
  );
  const runtime = installRuntime(system);
  if (!runtime) {
    console.error(
      `node-runtime: Node ${system.version} is not a supported line (${SUPPORTED}), and the npm registry has no Node runtime package ` +
        `that runs on ${process.platform}-${process.arch} here; install one of them and run npm install again.`,
    );
    process.exit(1);
  }
  console.log(
    `node-runtime: npm scripts and npx in this project run Node ${runtime.version} (npm package ${runtime.name}, in node_modules/.runtime). ` +
      `To use your own Node instead, install a supported line and run npm install again.`,
  );
}

main();
