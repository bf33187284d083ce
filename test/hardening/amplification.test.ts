// Amplification (issue 13, item 5): one request may not buy many expensive operations, one
// address may not mint accounts without end, one account's password may not be guessed without
// bound whatever addresses or tokens are used, and password hashing may not take the whole
// thread pool. Client addresses are simulated with TRUST_PROXY + X-Forwarded-For.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

const PASSWORD = "correct-horse";
const REGISTER = (alias: string, username: string) =>
  `${alias}: register(input: { username: "${username}", password: "${PASSWORD}", firstName: "Amp" }) { accessToken }`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const unique = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 8)}`;

async function post(s: TestServer, path: string, json: unknown, headers: Record<string, string> = {}) {
  const res = await s.fetch(path, { method: "POST", json, headers });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as any };
}

/** A gauge's value on /metrics, undefined when the server has no such metric. */
async function metric(server: TestServer, name: string) {
  const text = await (await server.fetch("/metrics")).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(" ")[1]);
}

const graphqlFrom = (s: TestServer, ip: string, query: string, token?: string) =>
  post(s, "/graphql", { query }, { "x-forwarded-for": ip, ...(token ? { authorization: `Bearer ${token}` } : {}) });

describe("register and login: at most once per operation", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => s?.close());

  it("refuses 30 aliased register mutations with 400 before creating any account", async () => {
    const before = await s.db.prisma.user.count();
    const names = Array.from({ length: 30 }, (_, i) => unique(`alias${i}x`));
    const r = await post(s, "/graphql", {
      query: `mutation { ${names.map((n, i) => REGISTER(`r${i}`, n)).join(" ")} }`,
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    expect(r.body.errors[0].message).toMatch(/register may appear at most once .* 30 times/);
    expect(await s.db.prisma.user.count()).toBe(before);
  });

  it("counts fields reached through fragment spreads and inline fragments", async () => {
    const before = await s.db.prisma.user.count();
    const viaFragments = `mutation { ...A ... on Mutation { ${REGISTER("b", unique("frag"))} } }
      fragment A on Mutation { ${REGISTER("a", unique("frag"))} }`;
    const r = await post(s, "/graphql", { query: viaFragments });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].message).toMatch(/register may appear at most once .* 2 times/);
    expect(await s.db.prisma.user.count()).toBe(before);
  });

  it("refuses aliased login guesses before checking any password", async () => {
    const guesses = Array.from(
      { length: 10 },
      (_, i) => `g${i}: login(username: "someone", password: "guess-${i}") { accessToken }`,
    );
    const r = await post(s, "/graphql", { query: `mutation { ${guesses.join(" ")} }` });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].message).toMatch(/login may appear at most once .* 10 times/);
    expect(await metric(s, "password_hashes_in_flight_peak")).toBe(0);
  });

  it("still runs one expensive field per request (GraphQL and REST)", async () => {
    const r = await post(s, "/graphql", { query: `mutation { ${REGISTER("only", unique("single"))} }` });
    expect(r.status).toBe(200);
    expect(r.body.data.only.accessToken).toBeTruthy();
    const rest = await post(s, "/users", { username: unique("rest"), password: PASSWORD, first_name: "Rest" });
    expect(rest.status).toBe(201);
  });
});

describe("expensive fields count one by one against the rate limits", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ RATE_LIMIT_MAX: "5", RATE_LIMIT_WINDOW: "1m" });
  });
  afterAll(async () => s?.close());

  const creates = (n: number, title: string) =>
    `mutation { ${Array.from({ length: n }, (_, i) => `c${i}: createRestaurant(input: { title: "${title}" }) { id }`).join(" ")} }`;

  it("charges each aliased write to the token's bucket: 4 writes + 1 request use up a limit of 5", async () => {
    const { token } = await s.signUp("writer");
    const four = await post(s, "/graphql", { query: creates(4, "Four") }, { authorization: `Bearer ${token}` });
    expect(four.status).toBe(200);
    expect(await s.db.prisma.restaurant.count({ where: { title: "Four" } })).toBe(4);
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++)
      statuses.push(
        (await post(s, "/graphql", { query: "{ me { id } }" }, { authorization: `Bearer ${token}` })).status,
      );
    expect(statuses).toEqual([200, 429]);
  });

  it("refuses an operation whose writes exceed the limit with 429 and Retry-After before any runs", async () => {
    const { token } = await s.signUp("greedy");
    const many = await post(s, "/graphql", { query: creates(6, "Six") }, { authorization: `Bearer ${token}` });
    expect(many.status).toBe(429);
    expect(Number(many.retryAfter)).toBeGreaterThan(0);
    expect(many.body.errors[0].extensions.code).toBe("RATE_LIMITED");
    expect(many.body.data).toBeUndefined();
    expect(await s.db.prisma.restaurant.count({ where: { title: "Six" } })).toBe(0);
  });

  it("counts fields spread from fragments too", async () => {
    const { token } = await s.signUp("spreader");
    const query = `mutation { ...W ... on Mutation { b: createRestaurant(input: { title: "Spread" }) { id } } }
      fragment W on Mutation { a: createRestaurant(input: { title: "Spread" }) { id } c: createRestaurant(input: { title: "Spread" }) { id } }`;
    expect((await post(s, "/graphql", { query }, { authorization: `Bearer ${token}` })).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push(
        (await post(s, "/graphql", { query: "{ me { id } }" }, { authorization: `Bearer ${token}` })).status,
      );
    expect(statuses).toEqual([200, 200, 429]);
  });
});

describe("sign-ups per address (SIGNUP_RATE_LIMIT)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ SIGNUP_RATE_LIMIT: "3", TRUST_PROXY: "127.0.0.1" });
  });
  afterAll(async () => s?.close());

  it("lets one address create SIGNUP_RATE_LIMIT accounts an hour over REST and GraphQL together, then 429 with Retry-After", async () => {
    const from = { "x-forwarded-for": "203.0.113.7" };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(
        (await post(s, "/users", { username: unique("loop"), password: PASSWORD, first_name: "Loop" }, from)).status,
      );
    }
    expect(statuses).toEqual([201, 201, 201]);

    const before = await s.db.prisma.user.count();
    const overRest = await post(
      s,
      "/users",
      { username: unique("loop"), password: PASSWORD, first_name: "Loop" },
      from,
    );
    expect(overRest.status).toBe(429);
    expect(overRest.body.error.code).toBe("RATE_LIMITED");
    const wait = Number(overRest.retryAfter);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(3600);

    const overGraphql = await graphqlFrom(s, "203.0.113.7", `mutation { ${REGISTER("r", unique("loop"))} }`);
    expect(overGraphql.status).toBe(429);
    expect(Number(overGraphql.retryAfter)).toBeGreaterThan(0);
    expect(overGraphql.body.errors[0].extensions.code).toBe("RATE_LIMITED");
    expect(await s.db.prisma.user.count()).toBe(before);

    // Another address is counted on its own.
    const elsewhere = await post(
      s,
      "/users",
      { username: unique("other"), password: PASSWORD, first_name: "O" },
      { "x-forwarded-for": "198.51.100.9" },
    );
    expect(elsewhere.status).toBe(201);
  });

  it("does not count input refused before any work", async () => {
    const from = { "x-forwarded-for": "203.0.113.99" };
    for (let i = 0; i < 5; i++)
      expect((await post(s, "/users", { username: "x", password: PASSWORD, first_name: "B" }, from)).status).toBe(400);
    expect(
      (await post(s, "/users", { username: unique("valid"), password: PASSWORD, first_name: "V" }, from)).status,
    ).toBe(201);
  });
});

describe("login back-off per account (LOGIN_FREE_ATTEMPTS, LOGIN_BACKOFF_MAX)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ LOGIN_FREE_ATTEMPTS: "3", LOGIN_BACKOFF_MAX: "1h", TRUST_PROXY: "127.0.0.1" });
  });
  afterAll(async () => s?.close());

  /** A REST login from `ip` carrying a made-up bearer token. */
  const restLogin = (username: string, password: string, ip: string) =>
    post(s, "/auth/token", { username, password }, { "x-forwarded-for": ip, authorization: `Bearer made-up-${ip}` });

  it("locks a username after the free failures whatever addresses and tokens guess, with a growing Retry-After", async () => {
    const victim = await s.signUp("victim");
    const statuses: number[] = [];
    for (let i = 1; i <= 3; i++) statuses.push((await restLogin(victim.username, `guess-${i}`, `192.0.2.${i}`)).status);
    expect(statuses).toEqual([401, 401, 401]);

    // The third failure locked the name for 1 s: a fourth guess from a fresh address is refused
    // unchecked, and so is the right password (else the lock would tell which guess was right).
    const locked = await restLogin(victim.username, "guess-4", "192.0.2.4");
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe("RATE_LIMITED");
    expect(Number(locked.retryAfter)).toBe(1);
    const lockedGraphql = await graphqlFrom(
      s,
      "192.0.2.5",
      `mutation { login(username: "${victim.username}", password: "${PASSWORD}") { accessToken } }`,
      "made-up",
    );
    expect(lockedGraphql.status).toBe(429);
    expect(lockedGraphql.body.errors[0].extensions.code).toBe("RATE_LIMITED");
    expect(Number(lockedGraphql.retryAfter)).toBe(1);

    // Once the lock ends, one more wrong guess doubles it.
    await sleep(1100);
    expect((await restLogin(victim.username, "guess-5", "192.0.2.6")).status).toBe(401);
    const longer = await restLogin(victim.username, "guess-6", "192.0.2.7");
    expect(longer.status).toBe(429);
    expect(Number(longer.retryAfter)).toBe(2);

    // The right password after the lock signs in and resets the count.
    await sleep(2100);
    expect((await restLogin(victim.username, PASSWORD, "192.0.2.8")).status).toBe(200);
    expect((await restLogin(victim.username, "guess-7", "192.0.2.9")).status).toBe(401);
  });

  it("does not let guesses sent at once slip past the lock", async () => {
    const victim = await s.signUp("burst");
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => restLogin(victim.username, `burst-${i}`, `192.0.2.${100 + i}`)),
    );
    const checked = answers.filter((a) => a.status === 401).length;
    expect(checked).toBeLessThanOrEqual(3);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(20 - checked);
  });

  it("keeps an address the owner signed in from usable while strangers lock the name", async () => {
    const owner = await s.signUp("owner");
    expect((await restLogin(owner.username, PASSWORD, "198.51.100.1")).status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await restLogin(owner.username, `x-${i}`, `192.0.2.${200 + i}`)).status).toBe(401);
    expect((await restLogin(owner.username, PASSWORD, "192.0.2.210")).status).toBe(429);
    expect((await restLogin(owner.username, PASSWORD, "198.51.100.1")).status).toBe(200);
  });

  it("throttles unknown usernames alike (a lock does not reveal that an account exists)", async () => {
    const name = unique("nobody");
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await restLogin(name, `guess-${i}`, `192.0.2.${50 + i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});

describe("password hashing concurrency (PASSWORD_HASH_CONCURRENCY, PASSWORD_HASH_QUEUE)", () => {
  let s: TestServer;
  let tight: TestServer;
  beforeAll(async () => {
    s = await startServer({ PASSWORD_HASH_CONCURRENCY: "1" });
    tight = await startServer({ PASSWORD_HASH_CONCURRENCY: "1", PASSWORD_HASH_QUEUE: "0" });
  });
  afterAll(async () => Promise.all([s?.close(), tight?.close()]));

  it("runs at most PASSWORD_HASH_CONCURRENCY hashes at once; the others wait and are all answered", async () => {
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, () =>
        post(s, "/users", { username: unique("busy"), password: PASSWORD, first_name: "B" }),
      ),
      ...Array.from({ length: 8 }, (_, i) =>
        post(s, "/auth/token", { username: unique("ghost"), password: `guess-${i}` }),
      ),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(8).fill(201), ...Array(8).fill(401)]);
    expect(await metric(s, "password_hashes_in_flight_peak")).toBe(1);
    expect(await metric(s, "password_hashes_in_flight")).toBe(0);
    expect(await metric(s, "password_hashes_queued")).toBe(0);
  });

  it("answers 503 SERVER_BUSY with Retry-After when the queue is full, never 500, and changes nothing", async () => {
    const names = Array.from({ length: 20 }, () => unique("crowd"));
    const answers = await Promise.all(
      names.map((username) => post(tight, "/users", { username, password: PASSWORD, first_name: "C" })),
    );
    const busy = answers.filter((a) => a.status === 503);
    expect(answers.every((a) => a.status === 201 || a.status === 503)).toBe(true);
    expect(busy.length).toBeGreaterThan(0);
    for (const a of busy) {
      expect(a.body.error.code).toBe("SERVER_BUSY");
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    expect(await tight.db.prisma.user.count({ where: { username: { in: names } } })).toBe(20 - busy.length);
    expect(await metric(tight, "password_hashes_refused")).toBe(busy.length);
  });

  it("answers the same 503 SERVER_BUSY with Retry-After over /graphql", async () => {
    const names = Array.from({ length: 20 }, () => unique("gqlcrowd"));
    const answers = await Promise.all(
      names.map((username) => post(tight, "/graphql", { query: `mutation { ${REGISTER("r", username)} }` })),
    );
    const busy = answers.filter((a) => a.status === 503);
    expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true);
    expect(busy.length).toBeGreaterThan(0);
    for (const a of busy) {
      expect(a.body.errors[0].extensions.code).toBe("SERVER_BUSY");
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    expect(await tight.db.prisma.user.count({ where: { username: { in: names } } })).toBe(20 - busy.length);
  });
});
