// A source file run directly on a Node this project does not support (the machine's Node 20 here:
// `node_modules/.bin/tsx src/cli/admin.ts create x`, whose shebang finds it) says so and how to
// run it instead, and exits 1 before the SQLite driver loads; it used to die with exit 139 (a
// segfault of better-sqlite3 13) and print nothing. Every npm script that runs a file of src/ or
// bench/ is an entry point and is tried (a new one without `import "…/node-guard.ts"` fails here).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { npmCommandFor, unsupportedNodeMessage } from "../../src/node-guard.ts";
import { packageManifest, supportsNode } from "../../src/package-manifest.mjs";
import { ROOT } from "../helpers/process.ts";

/** The machine's own Node when it is not a supported line: `node` on PATH outside node_modules, then the usual places. */
function unsupportedNode(): string | undefined {
  const outside = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => !dir.includes("node_modules"));
  const candidates = [...outside.map((dir) => path.join(dir, "node")), "/usr/local/bin/node", "/usr/bin/node"];
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ["--version"], { encoding: "utf8" }).trim();
    if (!supportsNode(version)) return candidate;
  }
  return undefined;
}

/** Every TypeScript file of src/ or bench/ an npm script runs, with the commands that run it. */
const entryPoints: [entry: string, commands: string[]][] = [];
for (const [script, command] of Object.entries(packageManifest.scripts)) {
  const entry = command.split(/\s+/).find((word) => /^(src|bench)\/.+\.ts$/.test(word));
  if (!entry) continue;
  const npm = script === "start" ? "npm start" : `npm run ${script}`;
  const known = entryPoints.find(([file]) => file === entry);
  if (known) known[1].push(npm);
  else entryPoints.push([entry, [npm]]);
}

/** Arguments that make each command open the database (the bench commands only print their help). */
const argumentsFor = (entry: string) =>
  entry === "src/cli/admin.ts" ? ["create", "newcomer"] : entry.startsWith("bench/") ? ["--help"] : [];

const scratch = mkdtempSync(path.join(tmpdir(), "gw-old-node-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it("knows the entry points: the service, the command-line tools and the benchmarks", () => {
  expect(entryPoints.map(([entry]) => entry)).toEqual(
    expect.arrayContaining([
      "src/main.ts",
      "src/cli/admin.ts",
      "src/cli/seed.ts",
      "src/cli/migrate.ts",
      "bench/run.ts",
    ]),
  );
});

it("tells which npm command runs a file, with its arguments quoted for a shell", () => {
  expect(npmCommandFor("src/main.ts", [])).toBe("npm start");
  expect(npmCommandFor("src/cli/admin.ts", ["create", "x"])).toBe("npm run admin -- create x");
  expect(npmCommandFor("src/cli/admin.ts", ["create", "ann o'neil"])).toBe(`npm run admin -- create 'ann o'\\''neil'`);
  expect(npmCommandFor("src/nothing.ts", [])).toBeUndefined();
  const message = unsupportedNodeMessage("v20.20.2", "/usr/bin/node", [
    "/usr/bin/node",
    path.join(ROOT, "src/cli/seed.ts"),
  ]);
  expect(message).toContain("This is Node v20.20.2 (/usr/bin/node)");
  expect(message).toContain("npm run seed");
});

const node = unsupportedNode();

describe.runIf(node)(`run directly on the machine's unsupported Node (${node})`, () => {
  it.each(entryPoints)("%s says so and how to run it, before the SQLite driver loads", (entry, commands) => {
    const database = path.join(scratch, `${entry.replace(/\W/g, "-")}.db`);
    const args = argumentsFor(entry);
    const run = spawnSync(node!, [path.join(ROOT, "node_modules/.bin/tsx"), entry, ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: `file:${database}`, UPLOAD_DIR: path.join(scratch, "uploads") },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/^This is Node v\d+\.\d+\.\d+ \(/);
    const rest = args.length ? ` -- ${args.join(" ")}` : "";
    expect(commands.some((command) => run.stderr.includes(`  ${command}${rest}\n`))).toBe(true);
    // npm install links a Node of its own only when the Node that ran it was unsupported (this
    // machine's); CI's Node 22/24/26 runs have none, and the message then does not offer it.
    if (existsSync(path.join(ROOT, "node_modules/.bin/node")))
      expect(run.stderr).toContain(`node_modules/.bin/node --import tsx ${[entry, ...args].join(" ")}`);
    else expect(run.stderr).toContain("npm runs the first Node on PATH when it is a supported line");
    expect(run.stdout).toBe("");
    expect(existsSync(database), "it went on to open the database").toBe(false);
  });
});

// Not skipped silently: a machine whose Node is a supported line (CI's Node 22, 24 and 26 runs)
// has no unsupported Node to try; the cases above then do not run, and this says so.
it.skipIf(node)("has no unsupported Node on this machine to run the entry points with (nothing to check)", () => {});
