// README.md "Running several instances": the commands that move one SQLite instance's data into
// PostgreSQL and a bucket (and back) run here as the README writes them, without a container
// engine (none can pull an image here): each `docker compose run` line gets the environment
// deploy/compose.yaml gives that service, plus its `-e` settings, with the compose network's
// hosts pointed at the test's own stores (minio -> s3rver on 127.0.0.1 with the compose file's
// keys, postgres -> the database under test) and the volume at a temp folder. The covers copied
// into the bucket are then served from it by an instance with the compose file's settings.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { blocksOf } from "../helpers/doc-examples.ts";
import { createGroceryWithCover, jsonResult, pngWith, scratchSpace } from "../helpers/data-moves.ts";
import { ROOT, type AdminRun } from "../helpers/process.ts";
import { adminClient, startS3Server, type S3Server } from "../helpers/s3-server.ts";
import { startServer } from "../helpers/server.ts";
import type { TestDatabase } from "../helpers/database.ts";

const PROCESSES = 240_000;
const README = "README.md";
const THIS_FILE = "test/operability/several-instances.test.ts";
const compose = parse(readFileSync(path.join(ROOT, "deploy/compose.yaml"), "utf8")) as {
  services: Record<string, { environment?: Record<string, string> }>;
};
/** The passwords a first `up` gets (README step 2 sets its own). */
const withDefaults = (value: string) => value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, "$1");
const POSTGRES_PASSWORD = withDefaults(compose.services.postgres!.environment!.POSTGRES_PASSWORD!);

/** The README's blocks this file runs, in order: each one `docker compose … run …` command. */
const commands = blocksOf(README, readFileSync(path.join(ROOT, README), "utf8"))
  .filter((block) => block.runBy?.startsWith(THIS_FILE))
  .map((block) => block.text.replace(/\\\n\s*/g, " ").trim());

type ComposeRun = {
  service: string;
  volume: [host: string, container: string];
  env: Record<string, string>;
  argv: string[];
};

/** Reads `[mkdir x &&] docker compose -f deploy/compose.yaml run [options] SERVICE command…`. */
function composeRun(line: string, pwd: string): ComposeRun {
  const command = line.replace(/^mkdir \S+ && /, "");
  const words = [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) =>
    (m[1] ?? m[2] ?? m[3]!).replaceAll("$PWD", pwd).replaceAll("$POSTGRES_PASSWORD", POSTGRES_PASSWORD),
  );
  expect(words.slice(0, 5)).toEqual(["docker", "compose", "-f", "deploy/compose.yaml", "run"]);
  const run: ComposeRun = { service: "", volume: ["", ""], env: {}, argv: [] };
  let i = 5;
  for (; i < words.length && words[i]!.startsWith("-"); i++) {
    const option = words[i]!;
    if (option === "--rm") continue;
    const value = words[++i]!;
    if (option === "-v") run.volume = value.split(":") as [string, string];
    else if (option === "-e") {
      const [name, ...rest] = value.split("=");
      run.env[name!] = rest.join("=");
    } else expect(option, `an option this test does not know: ${option}`).toBe("--user");
  }
  run.service = words[i]!;
  run.argv = words.slice(i + 1);
  return run;
}

const space = scratchSpace();
let s3: S3Server;
let root: string;
let target: TestDatabase;
const covers = new Map<string, string>(); // name -> SHA-256
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** A compose value on this machine: the compose network's hosts are the test's stores, the volume a temp folder. */
function onThisMachine(value: string, volume: [string, string]): string {
  if (/^postgresql:\/\/[^@]+@postgres:5432\/gateway$/.test(value)) return target.url;
  return value
    .replaceAll("http://minio:9000", s3.endpoint)
    .replace(new RegExp(`(^|[:=])${volume[1]}(?=/|$)`, "g"), `$1${volume[0]}`);
}

/** Runs one README command as the compose file's container would, on this machine. */
function runAsCompose(line: string): Promise<AdminRun> {
  const run = composeRun(line, root);
  const service = compose.services[run.service];
  expect(service, `no service ${run.service} in deploy/compose.yaml`).toBeDefined();
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...service!.environment, ...run.env }))
    env[name] = onThisMachine(withDefaults(String(value)), run.volume);
  mkdirSync(run.volume[0], { recursive: true });
  expect(run.argv.slice(0, 3)).toEqual(["node", "--import", "tsx"]);
  const argv = run.argv.slice(1).map((arg) => onThisMachine(arg, run.volume));
  const child = spawn(process.execPath, argv, {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "test", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

beforeAll(async () => {
  s3 = await startS3Server();
  // The compose file's keys, known to this s3rver (it runs in this process).
  const minio = compose.services.minio!.environment!;
  const { DUMMY_ACCOUNT } = createRequire(import.meta.url)("s3rver/lib/models/account.js");
  DUMMY_ACCOUNT.createKeyPair(minio.MINIO_ROOT_USER, withDefaults(minio.MINIO_ROOT_PASSWORD!));
  const admin = adminClient(s3.endpoint);
  await admin.send(new CreateBucketCommand({ Bucket: "covers" })); // what the compose file's bucket service does
  admin.destroy();

  // One SQLite instance's data, as README's steps begin: ./data/gateway.db and ./data/uploads.
  root = space.folder("gw-several-");
  const data = path.join(root, "data");
  mkdirSync(path.join(data, "uploads"), { recursive: true });
  const sqlite: TestDatabase = {
    url: `file:${path.join(data, "gateway.db")}`,
    provider: "sqlite",
    drop: async () => {},
  };
  const server = await startServer(
    { UPLOAD_STORE: "filesystem", UPLOAD_DIR: path.join(data, "uploads") },
    { database: sqlite },
  );
  try {
    const owner = await server.signUp("moving");
    for (let i = 0; i < 3; i++) {
      const bytes = pngWith(`moved cover ${i}`);
      const created = await createGroceryWithCover(server, owner.token, `moved ${i}`, bytes);
      covers.set(created!.cover, sha256(bytes));
    }
  } finally {
    await server.close();
  }
  target = await space.database();
}, PROCESSES);

afterAll(async () => {
  await space.cleanUp();
  await s3?.close();
});

describe("README: from one SQLite instance to PostgreSQL and a bucket, and back", () => {
  it("the README marks two commands for this file", () => {
    expect(commands).toHaveLength(2);
  });

  it(
    "copy-data moves the rows and the covers into the bucket, checked; back, into a new file and folder; the covers are served from the bucket",
    async () => {
      const moved = await runAsCompose(commands[0]!);
      expect(moved.code, moved.stderr).toBe(0);
      expect(jsonResult(moved)).toMatchObject({ ok: true, coversCopied: 3 });
      const admin = adminClient(s3.endpoint);
      try {
        const listed = await admin.send(new ListObjectsV2Command({ Bucket: "covers" }));
        expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual([...covers.keys()].sort());
        for (const [name, sum] of covers) {
          const got = await admin.send(new GetObjectCommand({ Bucket: "covers", Key: name }));
          expect(sha256(await got.Body!.transformToByteArray()), name).toBe(sum);
        }
      } finally {
        admin.destroy();
      }

      const back = await runAsCompose(commands[1]!);
      expect(back.code, back.stderr).toBe(0);
      expect(jsonResult(back)).toMatchObject({ ok: true, coversCopied: 3 });
      const uploads = path.join(root, "data-back", "uploads");
      const copied = Object.fromEntries(
        readdirSync(uploads)
          .filter((name) => !name.startsWith("."))
          .map((name) => [name, sha256(readFileSync(path.join(uploads, name)))]),
      );
      expect(copied).toEqual(Object.fromEntries(covers));

      // An instance with the compose file's settings serves the covers from the bucket.
      const env = compose.services["gateway-a"]!.environment!;
      const settings = Object.fromEntries(
        Object.entries(env)
          .filter(([name]) => /^(UPLOAD_STORE|S3_)/.test(name))
          .map(([name, value]) => [name, onThisMachine(withDefaults(String(value)), ["", "/data"])]),
      );
      const instance = await startServer(settings, { database: target });
      try {
        for (const [name, sum] of covers) {
          const served = await instance.fetch(`/uploads/${name}`);
          expect(served.status, name).toBe(200);
          expect(sha256(new Uint8Array(await served.arrayBuffer())), name).toBe(sum);
        }
      } finally {
        await instance.close();
      }
    },
    PROCESSES,
  );
});
