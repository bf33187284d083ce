// A private nginx for one test file (a real HTTP cache in front of the service): Debian's binary,
// started on free ports of 127.0.0.1 with its own prefix, configuration, cache, temp files and
// logs in a temp folder, never the system's configuration or folders.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./free-port.ts";

const BINARY = existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx";

/**
 * nginx is installed: tests that need it are skipped otherwise, unless TEST_NGINX_REQUIRED=1
 * (.ci/run installs it and sets that): then they run and fail, so CI never skips them silently.
 */
export const nginxInstalled =
  process.env.TEST_NGINX_REQUIRED === "1" || spawnSync(BINARY, ["-v"], { stdio: "ignore" }).status === 0;

export type TestNginx = {
  /** http://127.0.0.1:<port> of each server block, in the order the configuration was given ports. */
  urls: string[];
  /** The master process (its workers are its children). */
  pid: number;
  /** Its error log so far (for failure messages). */
  errorLog(): string;
  close(): Promise<void>;
};

/** Accepts a TCP connection on the port (nginx listens once its master has read the configuration). */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Starts nginx with the `http { }` block `http(dir, ports)` returns: `dir` is the private folder
 * (caches go under it), `ports` are `servers` free ports for its `listen` lines.
 */
export async function startNginx(servers: number, http: (dir: string, ports: number[]) => string): Promise<TestNginx> {
  for (let attempt = 1; ; attempt++) {
    const dir = mkdtempSync(path.join(tmpdir(), "gw-nginx-"));
    chmodSync(dir, 0o755); // as root, nginx's workers run as nobody: they must reach the cache below
    const ports: number[] = [];
    for (let i = 0; i < servers; i++) ports.push(await freePort());
    const temp = (name: string) => `${name}_temp_path ${dir}/temp-${name};`;
    writeFileSync(
      path.join(dir, "nginx.conf"),
      `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log notice;
events { worker_connections 512; }
http {
  access_log ${dir}/access.log;
  ${temp("client_body")} ${temp("proxy")} ${temp("fastcgi")} ${temp("uwsgi")} ${temp("scgi")}
${http(dir, ports)}
}
`,
    );
    const errorLog = () => {
      try {
        return readFileSync(path.join(dir, "error.log"), "utf8");
      } catch {
        return "";
      }
    };
    const child: ChildProcess = spawn(
      BINARY,
      ["-p", dir, "-c", path.join(dir, "nginx.conf"), "-e", path.join(dir, "error.log")],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const close = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    };
    const started = Date.now();
    let ready = false;
    while (!ready && child.exitCode === null && Date.now() - started < 15_000) {
      ready = (await Promise.all(ports.map(listening))).every(Boolean);
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (ready && child.exitCode === null)
      return { urls: ports.map((port) => `http://127.0.0.1:${port}`), pid: child.pid!, errorLog, close };
    const output = `${stderr}${errorLog()}`;
    await close();
    // A port taken between the probe and the start: try others.
    if (attempt < 3 && /Address already in use/.test(output)) continue;
    throw new Error(`nginx did not start:\n${output}`);
  }
}

const DOC = fileURLToPath(new URL("../../docs/http-caching.md", import.meta.url));

/**
 * The nginx block docs/http-caching.md gives, pointed at these upstreams (host:port), this port
 * and a cache under `dir`, its names suffixed with `zone` (one configuration may hold several);
 * it adds X-Upstream (which instance answered) for the tests.
 */
export function documentedNginxBlock(dir: string, port: number, upstreams: string[], zone: string): string {
  const block = /```nginx\n([\s\S]*?)```/.exec(readFileSync(DOC, "utf8"))?.[1];
  if (!block) throw new Error("docs/http-caching.md has no nginx block");
  const replaced = block
    .replace(/( *server \d+\.\d+\.\d+\.\d+:\d+;\n)+/, upstreams.map((host) => `  server ${host};\n`).join(""))
    .replace("listen 80;", `listen 127.0.0.1:${port};`)
    .replace("/var/cache/nginx/gateway", `${dir}/cache-${zone}`)
    .replaceAll("keys_zone=gateway:", `keys_zone=${zone}:`)
    .replace("proxy_cache gateway;", `proxy_cache ${zone};`)
    .replaceAll("upstream gateway", `upstream ${zone}`)
    .replace("proxy_pass http://gateway;", `proxy_pass http://${zone};`)
    .replaceAll("$connection_upgrade", `$${zone}_upgrade`)
    .replace(
      "add_header X-Cache-Status",
      "add_header X-Upstream $upstream_addr always;\n    add_header X-Cache-Status",
    );
  for (const placeholder of ["10.0.0.", "listen 80;", "/var/cache/nginx", "http://gateway", "gateway:"])
    if (replaced.includes(placeholder))
      throw new Error(`the nginx block of docs/http-caching.md changed shape: ${placeholder} left`);
  return replaced;
}
