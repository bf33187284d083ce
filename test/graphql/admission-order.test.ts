// One admission path (src/graphql/execution/operation.ts) for every transport: HTTP GraphQL, the REST shim,
// graphql-ws and graphql-sse charge the caller first, then parse with the token limit, validate,
// and cost with the variables, in that order. Shown the way an attacker would probe it: a
// document refused for its cost (or its length) is still charged, on every transport, with the same
// words, so the caller runs out of its rate limit exactly as fast whichever transport it uses.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { liveClient, subscribe, within, type LiveClient } from "../helpers/live.ts";
import { issueToken } from "../../src/domain/accounts/tokens.ts";

const LIMIT = 3;
let s: TestServer;
const clients: LiveClient[] = [];

beforeAll(async () => {
  s = await startServer({ RATE_LIMIT_MAX: String(LIMIT), GRAPHQL_MAX_COST: "100", GRAPHQL_MAX_TOKENS: "100" });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await s?.close();
});

type Refusal = { code: string; message: string };

let accounts = 0;
/** A signed-in account made in the database: signing up would spend the address's few requests. */
async function account() {
  const user = await s.db.prisma.user.create({
    data: { username: `order${++accounts}`, passwordHash: "-", firstName: "Order" },
  });
  return { token: (await issueToken(s.db, user.id, 3_600_000)).token };
}

/** The transports that take a client's document, each sending `query` once and saying how it was refused. */
const transports: Record<string, (token: string) => (query: string) => Promise<Refusal>> = {
  "HTTP GraphQL": (token) => async (query) => {
    const res = await s.graphql(query, {}, token);
    return { code: res.errors?.[0].extensions?.code ?? "", message: res.errors?.[0].message ?? "" };
  },
  "graphql-sse": (token) => async (query) => {
    const res = await s.fetch("/graphql/stream", {
      method: "POST",
      token,
      headers: { accept: "text/event-stream" },
      json: { query },
    });
    const body = await res.json();
    return {
      code: body.errors?.[0].extensions?.code ?? body.error?.code,
      message: body.errors?.[0].message ?? body.error?.message,
    };
  },
  "graphql-ws": (token) => {
    const client = liveClient(s, { authorization: `Bearer ${token}` });
    clients.push(client);
    return async (query) => {
      const outcome = (await within(subscribe(client, query).ended, "the refusal")) as {
        message: string;
        extensions: { code: string };
      }[];
      return { code: outcome[0].extensions.code, message: outcome[0].message };
    };
  },
};

const OVER_COST = `subscription { shoppingListChanged { shoppingList(first: 100) { nodes { quantity grocery { id title } } } } }`;
const OVER_TOKENS = `subscription { shoppingListChanged { ${"changedAt ".repeat(20)}${"...F ".repeat(40)} } } fragment F on ShoppingListChange { changedAt }`;

describe("every transport admits in the same order: charge, parse, validate, cost", () => {
  it.each(Object.keys(transports))(
    "%s: an over-cost document is charged, then refused with the same words",
    async (transport) => {
      const user = await account();
      const send = transports[transport](user.token);
      const refusals = [];
      for (let i = 0; i <= LIMIT; i++) refusals.push(await send(OVER_COST));
      for (const refusal of refusals.slice(0, LIMIT)) {
        expect(refusal).toEqual({
          code: "BAD_USER_INPUT",
          message: expect.stringMatching(/^Operation cost \d+ is above the limit of 100 \(GRAPHQL_MAX_COST\)/),
        });
      }
      expect(refusals[LIMIT].code).toBe("RATE_LIMITED");
      expect(new Set(refusals.slice(0, LIMIT).map((r) => r.message)).size).toBe(1);
      costMessages.add(refusals[0].message);
    },
  );

  const costMessages = new Set<string>();
  it("gives the same cost refusal on every transport", () => {
    expect(costMessages.size).toBe(1);
  });

  it.each(Object.keys(transports))(
    "%s: a document over the token limit is charged before it is parsed",
    async (transport) => {
      const user = await account();
      const send = transports[transport](user.token);
      const refusals = [];
      for (let i = 0; i <= LIMIT; i++) refusals.push(await send(OVER_TOKENS));
      for (const refusal of refusals.slice(0, LIMIT))
        expect(refusal).toEqual({ code: "BAD_USER_INPUT", message: expect.stringMatching(/more that 100 tokens/) });
      expect(refusals[LIMIT].code).toBe("RATE_LIMITED");
    },
  );

  it("REST: a route's document costed with the request's page size is charged and refused the same way", async () => {
    const user = await account();
    const statuses = [];
    const bodies = [];
    for (let i = 0; i <= LIMIT; i++) {
      const res = await s.fetch("/restaurants?limit=100", { token: user.token });
      statuses.push(res.status);
      bodies.push(await res.json());
    }
    expect(statuses).toEqual([...Array(LIMIT).fill(400), 429]);
    expect(bodies[0].error).toEqual({
      code: "BAD_USER_INPUT",
      message: expect.stringMatching(/^Operation cost \d+ is above the limit of 100 \(GRAPHQL_MAX_COST\)/),
    });
    expect(bodies[LIMIT].error.code).toBe("RATE_LIMITED");
  });
});
