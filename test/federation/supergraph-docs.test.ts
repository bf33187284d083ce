// docs/supergraph.md's example, as a reader runs it on the demo data: its gateway script
// (supergraph-demo.mjs, Hive Gateway and a delivery subgraph) and its shell commands, taken from
// the page itself (only the ports are changed to free ones), against a seeded server with
// FEDERATION_SUBGRAPH=true.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/free-port.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { seed, DEFAULT_SEED_PASSWORD } from "../../src/seed/seed.ts";
import { ADMIN_USERNAME, DEMO_USERNAME, restaurantId } from "../../src/seed/dataset.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const page = readFileSync(path.join(ROOT, "docs/supergraph.md"), "utf8");

/** The fenced blocks of the page written in `language`. */
const blocks = (language: string) =>
  [...page.matchAll(new RegExp("^```" + language + "\\n([\\s\\S]*?)^```$", "gm"))].map((m) => m[1]);

let s: TestServer;
let demo: ChildProcess | undefined;
let folder: string;
let ports: Record<string, string>;
/** The page's text with its ports (4000 this service, 4001 the gateway, 4002 the delivery subgraph) made ours. */
const withPorts = (text: string) => text.replace(/\b400([012])\b/g, (port) => ports[port]);

beforeAll(async () => {
  s = await startServer({ FEDERATION_SUBGRAPH: "true" });
  await seed(s.db, { size: "small", uploadDir: s.config.uploadDir, password: DEFAULT_SEED_PASSWORD });
  ports = { 4000: new URL(s.url).port, 4001: String(await freePort()), 4002: String(await freePort()) };
  // Inside the project, so the script's imports resolve from its node_modules as for a reader.
  mkdirSync(path.join(ROOT, "node_modules/.cache"), { recursive: true });
  folder = mkdtempSync(path.join(ROOT, "node_modules/.cache/supergraph-docs-"));
}, 120_000); // seeding hashes the demo accounts' passwords
afterAll(async () => {
  if (demo && demo.exitCode === null && demo.signalCode === null) {
    const exited = new Promise((resolve) => demo!.once("exit", resolve));
    demo.kill();
    // The gateway outlived SIGTERM (still running after both suites of a run): never left behind.
    const force = setTimeout(() => demo?.kill("SIGKILL"), 3_000);
    await exited;
    clearTimeout(force);
  }
  rmSync(folder, { recursive: true, force: true });
  await s?.close();
});

describe("docs/supergraph.md's example", () => {
  it("starts the service as a subgraph and runs the script with the project's Node", () => {
    const setup = blocks("sh").find((b) => b.includes("supergraph-demo.mjs"));
    expect(setup).toContain("npm run seed");
    expect(setup).toContain("FEDERATION_SUBGRAPH=true npm start");
    expect(setup).toContain("npm exec -- node supergraph-demo.mjs");
  });

  it("composes, serves the gateway and answers the page's queries as it says", async () => {
    const script = blocks("js").find((b) => b.startsWith("// supergraph-demo.mjs"));
    expect(script).toBeDefined();
    const file = path.join(folder, "supergraph-demo.mjs");
    writeFileSync(file, withPorts(script!));
    demo = spawn(process.execPath, [file], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const seen = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("supergraph on http://127.0.0.1:")) resolve();
      };
      demo!.stdout!.on("data", seen);
      demo!.stderr!.on("data", seen);
      demo!.on("exit", (code) => reject(new Error(`supergraph-demo.mjs exited with ${code}:\n${output}`)));
    });

    const commands = blocks("sh").find((b) => b.includes("TOKEN=$(curl"));
    expect(commands).toBeDefined();
    const run = spawn("bash", ["-euo", "pipefail", "-c", withPorts(commands!)], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${path.join(ROOT, "node_modules/.bin")}:${process.env.PATH}` },
    });
    let stdout = "";
    let stderr = "";
    run.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    run.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise((resolve) => run.on("exit", resolve));
    expect(code, stderr).toBe(0);
    const [viaGateway, entities] = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));

    const first = await s.db.prisma.restaurant.findUniqueOrThrow({
      where: { id: restaurantId(1) },
      include: { owner: true },
    });
    expect(viaGateway.errors).toBeUndefined();
    expect(viaGateway.data.fastestDelivery).toEqual({
      title: first.title,
      owner: { username: first.owner.username },
      deliveryEstimate: 15 + (first.id.length % 10),
    });
    expect(viaGateway.data.restaurants.nodes).toHaveLength(2);
    for (const node of viaGateway.data.restaurants.nodes) expect(node.deliveryEstimate).toBeGreaterThanOrEqual(15);

    expect(entities.errors).toBeUndefined();
    expect(entities.data._entities).toEqual([
      { title: first.title },
      { username: DEMO_USERNAME, role: "USER" },
      { username: ADMIN_USERNAME, role: null },
    ]);
  }, 120_000); // a fresh Node loads the gateway; then bash, curl and node run the commands
});
