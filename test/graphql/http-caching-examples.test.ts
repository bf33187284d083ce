// The HTTP caching examples of docs/http-caching.md ("Examples") and of the README ("HTTP
// caching") run as written, with curl, against a service on freshly seeded demo data
// (`npm run seed`) with ANONYMOUS_READS=true: each ```sh block in turn in one shell (later blocks
// use what earlier ones set), its output compared with the ```text block that follows it.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SEED_PASSWORD, seed } from "../../src/seed/seed.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

type Example = { script: string; prints: string };

/** The ```sh blocks of a section (from its heading to the next of the same level), each with the ```text block after it. */
function examples(file: string, heading: string): Example[] {
  const text = readFileSync(`${ROOT}/${file}`, "utf8");
  const level = /^#+/.exec(heading)![0];
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${file} has no "${heading}"`);
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  const section = end < 0 ? rest : rest.slice(0, end);
  const found: Example[] = [];
  const block = /```sh\n([\s\S]*?)```\s*(?:[^`]*?)```text\n([\s\S]*?)```/g;
  for (const m of section.matchAll(block)) found.push({ script: m[1], prints: m[2] });
  return found;
}

/** Runs the scripts in one bash (not spawnSync: the server answers from this process), against `url` instead of localhost:4000. */
async function run(scripts: string[], url: string): Promise<string[]> {
  const host = new URL(url).host;
  const marker = "--- next example ---";
  const whole = scripts.map((script) => script.replaceAll("localhost:4000", host)).join(`\necho '${marker}'\n`);
  const child = spawn("bash", ["-euo", "pipefail", "-c", whole], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  if (code !== 0) throw new Error(`the examples failed (${code}):\n${stdout}\n${stderr}`);
  // HTTP header lines end in CR LF; a terminal shows them as the text blocks do.
  return stdout.replaceAll("\r", "").split(`${marker}\n`);
}

describe("the HTTP caching examples, on the demo data", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ ANONYMOUS_READS: "true" });
    await seed(s.db, {
      size: "small",
      uploadDir: s.config.uploadDir,
      password: DEFAULT_SEED_PASSWORD,
      database: s.config.database,
    });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it.each([
    ["docs/http-caching.md", "## Examples", 5],
    ["README.md", "### HTTP caching", 1],
  ])("%s, %s: every block prints what the text after it says", async (file, heading, count) => {
    const found = examples(file, heading);
    expect(found).toHaveLength(count);
    const outputs = await run(
      found.map((e) => e.script),
      s.url,
    );
    expect(outputs).toEqual(found.map((e) => e.prints));
  });
});
