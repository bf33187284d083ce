// The Dockerfile, deploy/compose.yaml and deploy/nginx.conf, checked as far as they can be without
// a container engine (none can pull a base image here): what the image copies exists and is not
// ignored, it runs as a non-root user the command the README gives (node as PID 1, the command
// the process tests start), its port and health check match the settings, the compose file's
// instances start with valid settings on PostgreSQL, Redis and a bucket, and nginx accepts the
// balancer's configuration and sends to the instances' port.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../src/config.ts";
import { READINESS_PATH } from "../../src/http/health.ts";
import { nginxInstalled } from "../helpers/nginx.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");
const dockerfile = read("Dockerfile");
const readme = read("README.md");
const compose = parse(read("deploy/compose.yaml")) as {
  services: Record<string, any>;
};
const nginxConf = read("deploy/nginx.conf");

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
const instructions = dockerfile
  .replace(/\\\n/g, " ")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith("#"))
  .map((line) => {
    const [keyword, ...rest] = line.split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: rest.join(" ") };
  });
const stages = instructions.reduce<(typeof instructions)[]>((all, i) => {
  if (i.keyword === "FROM") all.push([]);
  all[all.length - 1]?.push(i);
  return all;
}, []);
const last = stages[stages.length - 1];
const argsOf = (keyword: string, stage = last) => stage.filter((i) => i.keyword === keyword).map((i) => i.args);

/** .dockerignore's patterns (plain names and simple globs, as ours are). */
const ignored = read(".dockerignore")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));
const isIgnored = (file: string) =>
  ignored.some((pattern) => {
    const regex = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}(/|$)`);
    return regex.test(file);
  });

/** A compose value with ${NAME:-default} replaced by its default (what a first `up` gets). */
const withDefaults = (value: string) => value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, "$1");

describe("Dockerfile", () => {
  it("has a build stage and a runtime stage that runs as the unprivileged user node", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(argsOf("FROM", stages[0])[0]).toMatch(/ AS build$/);
    expect(argsOf("USER")).toEqual(["node"]);
    // Nothing runs after USER as root again, and the data folder belongs to node.
    expect(argsOf("RUN").join(" ")).toContain("chown -R node:node /data");
  });

  it("copies only files that exist in the checkout and that .dockerignore lets through", () => {
    const sources = stages.flatMap((stage) =>
      argsOf("COPY", stage)
        .filter((args) => !args.startsWith("--from="))
        .flatMap((args) => args.split(/\s+/).slice(0, -1)),
    );
    expect(sources.length).toBeGreaterThan(3);
    for (const source of sources) {
      expect(existsSync(path.join(ROOT, source)), source).toBe(true);
      expect(isIgnored(source), source).toBe(false);
    }
    // What the service reads at run time is in the image (src/db/migrate.ts, src/graphql/schema.ts).
    for (const needed of ["src", "prisma", "schema.graphql", "package.json", "package-lock.json"])
      expect(sources).toContain(needed);
    for (const never of ["node_modules", "data", "test", ".git"]) expect(isIgnored(never), never).toBe(true);
  });

  it("installs as CI does (npm ci with the install-script policy), without dev dependencies", () => {
    expect(argsOf("RUN", stages[0]).join(" ")).toMatch(/npm ci --omit=dev --strict-allow-scripts/);
  });

  it("starts node itself (exec form, PID 1, so SIGTERM reaches it) with the command the README gives", () => {
    const [cmd] = argsOf("CMD");
    const command = JSON.parse(cmd) as string[];
    // The V8 options: docs/performance.md "Slow reads after a lull" and "Full collections at high rates".
    expect(command).toEqual([
      "node",
      "--min-semi-space-size=16",
      "--initial-old-space-size=256",
      "--no-memory-reducer",
      "--import",
      "tsx",
      "src/main.ts",
    ]);
    expect(readme).toContain(
      "`node --min-semi-space-size=16 --initial-old-space-size=256 --no-memory-reducer --import tsx src/main.ts`",
    );
    // npm start runs the same (docs/operations.md), and so do the benchmarks (bench/processes.ts).
    expect(JSON.parse(read("package.json")).scripts.start).toBe(`exec ${command.join(" ")}`);
    expect(read("bench/processes.ts")).toContain(
      `SERVICE_NODE_FLAGS = [${command
        .slice(1, 4)
        .map((flag) => JSON.stringify(flag))
        .join(", ")}]`,
    );
    // The command the process tests start and stop with SIGTERM (test/helpers/process.ts).
    expect(read("test/helpers/process.ts")).toContain(`"--import", "tsx", "src/main.ts"`);
    expect(argsOf("ENTRYPOINT")).toEqual([]);
  });

  it("exposes the port it listens on and checks /readyz there", () => {
    const env = Object.fromEntries(
      argsOf("ENV")
        .join(" ")
        .split(/\s+/)
        .map((pair) => pair.split("=") as [string, string]),
    );
    const config = loadConfig(env);
    expect(config.host).toBe("0.0.0.0");
    expect(argsOf("EXPOSE")).toEqual([String(config.port)]);
    const [healthcheck] = argsOf("HEALTHCHECK");
    expect(healthcheck).toContain(READINESS_PATH);
    expect(healthcheck).toContain("process.env.PORT");
  });
});

describe("deploy/compose.yaml", () => {
  const gateways = Object.entries(compose.services).filter(([, s]) => s.build);

  it("runs two instances of the image, PostgreSQL, Redis, an S3 store with its bucket, and nginx", () => {
    expect(gateways.map(([name]) => name)).toEqual(["gateway-a", "gateway-b"]);
    for (const name of ["postgres", "redis", "minio", "bucket", "nginx"]) expect(compose.services).toHaveProperty(name);
    for (const [, service] of gateways) {
      expect(path.resolve(ROOT, "deploy", service.build.context, service.build.dockerfile)).toBe(
        path.join(ROOT, "Dockerfile"),
      );
      expect(Object.keys(service.depends_on).sort()).toEqual(["bucket", "postgres", "redis"]);
    }
  });

  it("gives each instance valid settings: PostgreSQL, Redis and the bucket the bucket service creates", () => {
    const postgres = compose.services.postgres.environment;
    for (const [name, service] of gateways) {
      const env = Object.fromEntries(
        Object.entries(service.environment as Record<string, string>).map(([k, v]) => [k, withDefaults(String(v))]),
      );
      const config = loadConfig(env); // throws ConfigError (exit 2 at start-up) on a bad value
      expect(config.database.dialect, name).toBe("postgres");
      expect(config.redisUrl).toBe("redis://redis:6379");
      expect(config.uploadStore).toMatchObject({ kind: "s3", bucket: "covers", forcePathStyle: true });
      expect(env.DATABASE_URL).toContain(`@postgres:5432/${postgres.POSTGRES_DB}`);
      expect(env.DATABASE_URL).toContain(`${postgres.POSTGRES_USER}:${withDefaults(postgres.POSTGRES_PASSWORD)}@`);
      expect(env.S3_ACCESS_KEY_ID).toBe(compose.services.minio.environment.MINIO_ROOT_USER);
      expect(env.S3_SECRET_ACCESS_KEY).toBe(withDefaults(compose.services.minio.environment.MINIO_ROOT_PASSWORD));
      expect(compose.services.bucket.command.join(" ")).toContain(
        `store/${config.uploadStore.kind === "s3" && config.uploadStore.bucket}`,
      );
      // The balancer sends to the port the instance listens on.
      expect(nginxConf).toContain(`server ${name}:${config.port} `);
      // Longer than the service's own shutdown timeout: in-flight requests finish before a SIGKILL.
      expect(Number.parseInt(service.stop_grace_period) * 1000).toBeGreaterThan(config.shutdownTimeoutMs);
    }
    expect(compose.services.nginx.volumes).toContain("./nginx.conf:/etc/nginx/nginx.conf:ro");
  });

  it.skipIf(!nginxInstalled)(
    "nginx accepts the balancer's configuration (nginx -t, the instances' names as 127.0.0.1)",
    () => {
      const dir = mkdtempSync(path.join(tmpdir(), "gw-nginx-conf-"));
      try {
        const conf = nginxConf
          .replace(/server gateway-[ab]:/g, "server 127.0.0.1:")
          .replace("listen 80;", "listen 127.0.0.1:18080;") // nginx -t binds nothing
          .replace("events {", `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {`)
          .replace(
            "http {",
            `http {\n  access_log off;\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n  fastcgi_temp_path ${dir}/fastcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n  scgi_temp_path ${dir}/scgi;`,
          );
        writeFileSync(path.join(dir, "nginx.conf"), conf);
        const binary = existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx";
        const checked = spawnSync(binary, ["-t", "-p", dir, "-c", path.join(dir, "nginx.conf")], { encoding: "utf8" });
        expect(checked.stderr).toContain("syntax is ok");
        expect(checked.status, checked.stderr).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
