// The first import of every entry point (src/main.ts, src/cli/*.ts, the bench commands): on a Node
// this project does not support, it says so and how to run the command instead, and exits 1
// before anything loads the SQLite driver (better-sqlite3 13 segfaults on Node 20: exit 139 and
// not a word). `npm start` and `npm run ...` are never stopped here: npm runs the Node `npm
// install` chose (node_modules/.bin/node, docs/runtimes.md); this catches a file run directly, e.g.
// `node_modules/.bin/tsx src/cli/admin.ts`, whose shebang finds the machine's own Node.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { packageManifest, SUPPORTED_LINES, supportsNode } from "./package-manifest.mjs";

const ROOT = path.resolve(fileURLToPath(new URL("..", import.meta.url)));

/** A word as a POSIX shell reads it back. */
const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** The npm command that runs `entry` (a path from the root, e.g. src/cli/admin.ts) with `args`, if a script does. */
export function npmCommandFor(entry: string, args: string[]): string | undefined {
  const found = Object.entries(packageManifest.scripts).find(([, command]) => command.split(/\s+/).includes(entry));
  if (!found) return undefined;
  const rest = args.length ? ` -- ${args.map(shellWord).join(" ")}` : "";
  return (found[0] === "start" ? "npm start" : `npm run ${found[0]}`) + rest;
}

export function unsupportedNodeMessage(version: string, execPath: string, argv: string[]): string {
  const entry = path
    .relative(ROOT, path.resolve(argv[1] ?? ""))
    .split(path.sep)
    .join("/");
  const args = argv.slice(2);
  const npm = npmCommandFor(entry, args);
  const runtime = path.join(ROOT, "node_modules/.bin/node");
  const direct = `node_modules/.bin/node --import tsx ${[entry, ...args].map(shellWord).join(" ")}`;
  const inRoot = path.resolve(process.cwd()) === ROOT ? "" : `cd ${shellWord(ROOT)} && `;
  return [
    `This is Node ${version} (${execPath}); this project runs on Node ${SUPPORTED_LINES} only`,
    "(its SQLite driver, better-sqlite3 13, crashes on older lines). Run it through npm instead,",
    "which uses the Node `npm install` chose for this project:",
    `  ${inRoot}${npm ?? `npm exec -- node --import tsx ${[entry, ...args].map(shellWord).join(" ")}`}`,
    ...(existsSync(runtime)
      ? [`or call that Node yourself:`, `  ${inRoot}${direct}`]
      : [
          "(npm runs the first Node on PATH when it is a supported line; otherwise `npm install` puts one",
          "in node_modules/.bin/node: docs/runtimes.md)",
        ]),
  ].join("\n");
}

if (!supportsNode(process.version)) {
  console.error(unsupportedNodeMessage(process.version, process.execPath, process.argv));
  process.exit(1);
}
