// First run: `npm start` on an empty database says where the API, the GraphQL IDE and the OpenAPI
// document are and how to get a token, and what it says works. The real service as a process.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { EXAMPLE_ACCOUNT } from "../../src/contract/examples.ts";
import { bannerText } from "../../src/http/banner.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { startProcess, type ServiceProcess } from "../helpers/process.ts";

let database: TestDatabase;
let uploads: string;
let service: ServiceProcess;
let lines: { msg: string; url?: string }[];

beforeAll(async () => {
  database = await createTestDatabase();
  uploads = mkdtempSync(path.join(tmpdir(), "gw-uploads-"));
  service = await startProcess({ DATABASE_URL: database.url, UPLOAD_DIR: uploads });
  const deadline = Date.now() + 10_000;
  while (!service.output().includes("npm run seed") && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  lines = service
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
});

afterAll(async () => {
  service?.child.kill("SIGTERM");
  await service?.exited;
  await database?.drop();
  rmSync(uploads, { recursive: true, force: true });
});

const line = (pattern: RegExp) => lines.find((l) => pattern.test(l.msg));

it("says where the GraphQL IDE, the REST reference and the OpenAPI document are, and they answer there", async () => {
  const ide = line(/^GraphQL IDE: /);
  expect(ide?.url).toBe(`${service.url}/explorer`);
  expect(ide?.msg).toContain(`open ${service.url}/graphql in a browser`);
  const explorer = await fetch(ide!.url!);
  expect(explorer.status).toBe(200);
  expect(explorer.headers.get("content-type")).toMatch(/^text\/html/);

  const reference = line(/^REST reference: /);
  expect(reference?.url).toBe(`${service.url}/docs`);
  expect((await fetch(reference!.url!)).headers.get("content-type")).toMatch(/^text\/html/);

  const openapi = line(/^OpenAPI document/);
  expect(openapi?.url).toBe(`${service.url}/openapi.json`);
  expect(((await (await fetch(openapi!.url!)).json()) as any).openapi).toMatch(/^3\./);
  expect(line(/^GraphQL API: POST /)?.url).toBe(`${service.url}/graphql`);
});

it("the printed token commands work as printed, in a shell: register, keep a token in $TOKEN, use it", async () => {
  const text = line(/^get a token: /)?.msg ?? "";
  const register = /curl -s (\S+) -H 'content-type: application\/json' -d '([^']+)'/.exec(text);
  expect(register?.[1]).toBe(`${service.url}/users`);
  const keep = line(/^keep a token in \$TOKEN: /)?.msg.replace(/^keep a token in \$TOKEN: /, "") ?? "";
  expect(keep).toMatch(new RegExp(`^TOKEN=\\$\\(curl -s ${service.url}/auth/token `));
  // The terminal's block: the same commands, and one that uses $TOKEN.
  const block = bannerText({ address: service.url, emptyDatabase: true, explorer: true, runtime: "" });
  const commands = block
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("curl ") || l.startsWith("TOKEN="));
  expect(commands).toHaveLength(3);
  expect(commands[1]).toBe(keep);
  const run = spawnSync("sh", ["-c", `${commands[0]} >/dev/null && ${commands[1]} && ${commands[2]}`], {
    encoding: "utf8",
  });
  expect(run.status, run.stderr).toBe(0);
  expect(JSON.parse(run.stdout)).toEqual({ data: { me: { username: EXAMPLE_ACCOUNT.username } } });
});

it("says which Node runs it, and why that one when npm install brought it (scripts/node-runtime)", () => {
  const runtime = line(/^runtime: /)?.msg ?? "";
  expect(runtime).toContain(`Node ${process.version}`); // the test spawns the service with its own Node
  const fromNodeModules = realpathSync(process.execPath).includes(
    `${path.sep}node_modules${path.sep}.runtime${path.sep}`,
  );
  expect(runtime.includes("not a supported line")).toBe(fromNodeModules);
});

it("points at the demo data only while the database is empty; a terminal gets the same facts as a block", () => {
  expect(line(/database is empty: `npm run seed`/)).toBeDefined();
  const block = bannerText({
    address: "http://127.0.0.1:4000",
    emptyDatabase: false,
    explorer: true,
    runtime: "Node v26.10.0",
  });
  expect(block).toContain("http://127.0.0.1:4000/explorer");
  expect(block).toContain("http://127.0.0.1:4000/openapi.json");
  expect(block).toContain("http://127.0.0.1:4000/docs");
  expect(block).toContain("TOKEN=$(curl -s http://127.0.0.1:4000/auth/token");
  expect(block).not.toContain("npm run seed");
  expect(block).toContain("Runtime       Node v26.10.0");
  // GRAPHQL_EXPLORER=false: the banner does not point at a page that answers 404.
  expect(
    bannerText({ address: "http://127.0.0.1:4000", emptyDatabase: false, explorer: false, runtime: "Node v26.10.0" }),
  ).not.toContain("/explorer");
});
