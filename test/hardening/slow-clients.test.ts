// Slow and hostile clients (issue 13 item 4), through the real server over raw sockets: a request
// must arrive within REQUEST_TIMEOUT, its body at BODY_MIN_RATE; a bad token in the header or
// query string is refused before the body is read; connections are bounded in total and per
// address with room left for health checks. Small settings keep each case to a few seconds.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { uploadFilesOf } from "../helpers/upload-store.ts";

type Raw = {
  socket: net.Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves with true once the server has closed the connection, false after `ms`. */
  closedWithin(ms: number): Promise<boolean>;
  /** Resolves once the server has sent a whole status line and headers, false after `ms`. */
  answeredWithin(ms: number): Promise<boolean>;
};

async function connect(s: TestServer): Promise<Raw> {
  const { port } = new URL(s.url);
  const socket = net.connect(Number(port), "127.0.0.1");
  socket.on("error", () => {}); // a reset after the server's answer is part of some cases
  let data = "";
  let closed = false;
  const listeners: (() => void)[] = [];
  const notify = () => listeners.splice(0).forEach((f) => f());
  socket.on("data", (chunk) => {
    data += chunk.toString("latin1");
    notify();
  });
  socket.on("close", () => {
    closed = true;
    notify();
  });
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const within = (done: () => boolean, ms: number) =>
    new Promise<boolean>((resolve) => {
      if (done()) return resolve(true);
      const timer = setTimeout(() => resolve(done()), ms);
      const check = () => (done() ? (clearTimeout(timer), resolve(true)) : listeners.push(check));
      listeners.push(check);
    });
  return {
    socket,
    received: () => data,
    closedWithin: (ms) => within(() => closed, ms),
    answeredWithin: (ms) => within(() => data.includes("\r\n\r\n") || closed, ms),
  };
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Log lines at level error or above, or of a 5xx answer (start the server with LOG_LEVEL=warn). */
const errorsLogged = (s: TestServer) =>
  s.logs.map((line) => JSON.parse(line)).filter((entry) => entry.level >= 50 || entry.res?.statusCode >= 500);
const filesIn = (s: TestServer) => uploadFilesOf(s);

/** Polls until the upload folder is empty (files are removed as their connection closes). */
async function uploadFolderEmpties(s: TestServer, ms = 3000) {
  const until = Date.now() + ms;
  while ((await filesIn(s)).length && Date.now() < until) await sleep(50);
  return filesIn(s);
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const BOUNDARY = "----slow-client-boundary";
const textPart = (name: string, value: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const filePartHead = (name: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="c.png"\r\nContent-Type: image/png\r\n\r\n`;

/** Request line and headers of a multipart request announcing `length` bytes of body. */
const multipartHead = (path: string, length: number, extra = "") =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\n${extra}Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${length}\r\n\r\n`;

describe("REQUEST_TIMEOUT: the whole request must arrive in time", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ REQUEST_TIMEOUT: "1s", BODY_MIN_RATE: "0", LOG_LEVEL: "warn" });
  });
  afterAll(async () => s?.close());

  it("headers and then no body: 408 and the connection closed; nothing created", async () => {
    const c = await connect(s);
    c.socket.write(`POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`);
    expect(await c.closedWithin(10_000)).toBe(true);
    expect(statusOf(c.received())).toBe(408);
    expect(bodyOf(c.received()).error.code).toBe("REQUEST_TIMEOUT");
    expect(await s.db.prisma.user.count()).toBe(0);
  });

  it("a connection that sends nothing, or half its headers, is closed at the timeout", async () => {
    const silent = await connect(s);
    const halfway = await connect(s);
    halfway.socket.write(`GET /restaurants HTTP/1.1\r\nHost: x\r\n`);
    expect(await silent.closedWithin(10_000)).toBe(true);
    expect(await halfway.closedWithin(10_000)).toBe(true);
    expect(statusOf(halfway.received())).toBe(408);
  });

  it("a body arriving fast enough for any rate but never finishing is cut at the timeout", async () => {
    const c = await connect(s);
    c.socket.write(
      `POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"username":"`,
    );
    const feed = setInterval(() => c.socket.writable && c.socket.write("a".repeat(2000)), 100);
    try {
      expect(await c.closedWithin(10_000)).toBe(true);
    } finally {
      clearInterval(feed);
    }
    expect(statusOf(c.received())).toBe(408);
    expect(await s.db.prisma.user.count()).toBe(0);
  });

  it("still serves a request that arrives in time on a kept-alive connection", async () => {
    const c = await connect(s);
    c.socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await c.answeredWithin(5000)).toBe(true);
    expect(statusOf(c.received())).toBe(200);
    c.socket.destroy();
  });

  it("logged no error for the requests it cut (no 500 either)", () => {
    expect(errorsLogged(s)).toEqual([]);
  });
});

describe("BODY_MIN_RATE: a body must keep coming", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer({
      REQUEST_TIMEOUT: "60s",
      BODY_MIN_RATE: "1000",
      BODY_MIN_RATE_WINDOW: "500ms",
      LOG_LEVEL: "warn",
    });
    token = (await s.signUp("uploader")).token;
  });
  afterAll(async () => s?.close());

  it("a body dripping one byte every 100 ms gets 408 long before REQUEST_TIMEOUT; nothing created", async () => {
    const c = await connect(s);
    c.socket.write(`POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`);
    const drip = setInterval(() => c.socket.writable && c.socket.write("{"), 100);
    try {
      expect(await c.closedWithin(10_000)).toBe(true);
    } finally {
      clearInterval(drip);
    }
    expect(statusOf(c.received())).toBe(408);
    expect(bodyOf(c.received()).error.code).toBe("REQUEST_TIMEOUT");
    expect(await s.db.prisma.user.count()).toBe(1);
  });

  it("a chunked body that stalls after its first chunk gets 408", async () => {
    const c = await connect(s);
    const start = `{"username":"chunky","password":"password-1","first_name":"C"`;
    c.socket.write(
      `POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    c.socket.write(`${start.length.toString(16)}\r\n${start}\r\n`);
    expect(await c.closedWithin(10_000)).toBe(true);
    expect(statusOf(c.received())).toBe(408);
    expect(await s.db.prisma.user.count()).toBe(1);
  });

  it("a REST multipart upload that stops inside its file: 408, no grocery, no file left behind", async () => {
    const head = textPart("title", "Stalled") + filePartHead("cover");
    const c = await connect(s);
    c.socket.write(multipartHead("/groceries", 1_000_000, `Authorization: Bearer ${token}\r\n`) + head);
    c.socket.write(Buffer.concat([PNG, Buffer.alloc(64 * 1024, 1)]));
    expect(await c.closedWithin(10_000)).toBe(true);
    expect(statusOf(c.received())).toBe(408);
    expect(await s.db.prisma.grocery.count()).toBe(0);
    expect(await uploadFolderEmpties(s)).toEqual([]);
  });

  it("a REST multipart upload that stops after its first part: 408, no grocery", async () => {
    const c = await connect(s);
    c.socket.write(
      multipartHead("/groceries", 100_000, `Authorization: Bearer ${token}\r\n`) + textPart("title", "Half"),
    );
    expect(await c.closedWithin(10_000)).toBe(true);
    expect(statusOf(c.received())).toBe(408);
    expect(await s.db.prisma.grocery.count()).toBe(0);
  });

  it("a GraphQL upload that stops inside its file: 408, no grocery, no file left behind", async () => {
    const operations = JSON.stringify({
      query: `mutation($input: CreateGroceryInput!) { createGrocery(input: $input) { id } }`,
      variables: { input: { title: "Stalled", cover: null } },
    });
    const body =
      textPart("operations", operations) +
      textPart("map", JSON.stringify({ 0: ["variables.input.cover"] })) +
      filePartHead("0");
    const c = await connect(s);
    c.socket.write(
      multipartHead("/graphql", 1_000_000, `Authorization: Bearer ${token}\r\nApollo-Require-Preflight: true\r\n`) +
        body,
    );
    c.socket.write(Buffer.concat([PNG, Buffer.alloc(64 * 1024, 1)]));
    expect(await c.closedWithin(10_000)).toBe(true);
    expect(statusOf(c.received())).toBe(408);
    expect(await s.db.prisma.grocery.count()).toBe(0);
    expect(await uploadFolderEmpties(s)).toEqual([]);
  });

  it("logged no error for any of these cut-short requests (no 500 either)", () => {
    expect(errorsLogged(s)).toEqual([]);
  });
});

describe("a token in the header or query string is checked before the body is read", () => {
  let s: TestServer;
  let user: { token: string };
  beforeAll(async () => {
    s = await startServer({ LOG_LEVEL: "warn" });
    user = await s.signUp("owner");
  });
  afterAll(async () => s?.close());

  /** Sends the head and the first KB of a body of `length` bytes, then waits for the server's answer. */
  async function sendFirstKilobyte(head: (length: number) => string, firstBytes: string, length = 5 * 1024 * 1024) {
    const c = await connect(s);
    c.socket.write(head(length));
    c.socket.write(firstBytes.padEnd(1024, " "));
    const answered = await c.answeredWithin(5000);
    return { c, answered };
  }

  it("REST multipart with a made-up bearer token: 401 after 1 KB of 5 MB, connection closed", async () => {
    const { c, answered } = await sendFirstKilobyte(
      (length) =>
        multipartHead("/groceries", length, "Authorization: Bearer made-up-token-made-up-token-made-up-token\r\n"),
      textPart("title", "Nope") + filePartHead("cover"),
    );
    expect(answered).toBe(true);
    expect(statusOf(c.received())).toBe(401);
    expect(bodyOf(c.received()).error.code).toBe("UNAUTHENTICATED");
    expect(await c.closedWithin(5000)).toBe(true);
    expect(await s.db.prisma.grocery.count()).toBe(0);
  });

  it("a revoked token in the access_token query parameter: 401 before the body (JSON too)", async () => {
    const { token } = await s.signUp("leaver");
    expect((await s.fetch("/auth/token", { method: "DELETE", token })).status).toBe(204);
    const { c, answered } = await sendFirstKilobyte(
      (length) =>
        `POST /restaurants?access_token=${token} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
      `{"title":"`,
      512 * 1024, // under BODY_LIMIT_BYTES, so only the token can refuse it early
    );
    expect(answered).toBe(true);
    expect(statusOf(c.received())).toBe(401);
    expect(await c.closedWithin(5000)).toBe(true);
    expect(await s.db.prisma.restaurant.count()).toBe(0);
  });

  it("GraphQL multipart with a made-up token, or none: 401 before the body", async () => {
    for (const auth of ["Authorization: Bearer made-up-token-made-up-token-made-up-token\r\n", ""]) {
      const { c, answered } = await sendFirstKilobyte(
        (length) => multipartHead("/graphql", length, `${auth}Apollo-Require-Preflight: true\r\n`),
        textPart("operations", JSON.stringify({ query: "mutation { __typename }" })),
      );
      expect(answered).toBe(true);
      expect(statusOf(c.received())).toBe(401);
      expect(bodyOf(c.received()).errors[0].extensions.code).toBe("UNAUTHENTICATED");
      expect(await c.closedWithin(5000)).toBe(true);
    }
  });

  it("a valid token passes on to the body; public routes read theirs whatever token is sent", async () => {
    const created = await s.fetch("/restaurants", { method: "POST", token: user.token, json: { title: "Fine" } });
    expect(created.status).toBe(201);
    const registered = await s.fetch("/users", {
      method: "POST",
      token: "made-up-token",
      json: { username: "newcomer", password: "password-1", first_name: "N" },
    });
    expect(registered.status).toBe(201);
  });

  it("logged no error for the refused requests (no 500 either)", () => {
    expect(errorsLogged(s)).toEqual([]);
  });
});

describe("MAX_CONNECTIONS_PER_ADDRESS and MAX_CONNECTIONS, with room for health checks", () => {
  const hold = async (s: TestServer, n: number) => {
    const held: Raw[] = [];
    for (let i = 0; i < n; i++) held.push(await connect(s));
    await sleep(100); // the server has counted them
    return held;
  };

  it("one address holds at most its bound: the next connection gets 429 and is closed; /healthz answers", async () => {
    const s = await startServer({ MAX_CONNECTIONS_PER_ADDRESS: "5" });
    try {
      const held = await hold(s, 5);
      const extra = await connect(s);
      extra.socket.write(`GET /restaurants HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(await extra.closedWithin(5000)).toBe(true);
      expect(statusOf(extra.received())).toBe(429);
      expect(held.every((c) => !c.socket.destroyed)).toBe(true);

      const health = await connect(s);
      health.socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(await health.closedWithin(5000)).toBe(true); // answered, then closed: the reserve slot is freed
      expect(statusOf(health.received())).toBe(200);
      held.forEach((c) => c.socket.destroy());
    } finally {
      await s.close();
    }
  });

  it("a full server answers 503 on the extra connection and still answers /readyz", async () => {
    const s = await startServer({ MAX_CONNECTIONS: "5", MAX_CONNECTIONS_PER_ADDRESS: "0" });
    try {
      const held = await hold(s, 5);
      const extra = await connect(s);
      extra.socket.write(
        `POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
      );
      expect(await extra.closedWithin(5000)).toBe(true);
      expect(statusOf(extra.received())).toBe(503);

      const ready = await connect(s);
      ready.socket.write(`GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(await ready.closedWithin(5000)).toBe(true);
      expect(statusOf(ready.received())).toBe(200);
      held.forEach((c) => c.socket.destroy());
      expect(await s.db.prisma.user.count()).toBe(0);
    } finally {
      await s.close();
    }
  });
});
