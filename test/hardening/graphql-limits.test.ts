// GraphQL operation limits at their boundaries: depth, aliases, cost, tokens; field suggestions
// off in production; introspection by setting; no batching.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

/** A query `depth` levels deep, alternating Restaurant.latestComment and Comment.restaurant. */
function deepQuery(depth: number): string {
  let open = "query Deep($id: ID!) { restaurant(id: $id) {";
  for (let level = 3; level <= depth; level++) open += level % 2 === 1 ? " latestComment {" : " restaurant {";
  return `${open} id ${"}".repeat(depth)}`;
}

const countDepth = (q: string) => {
  let depth = 0;
  let max = 0;
  for (const ch of q) {
    if (ch === "{") max = Math.max(max, ++depth);
    if (ch === "}") depth--;
  }
  return max;
};

let s: TestServer;
let token: string;
beforeAll(async () => {
  s = await startServer({
    GRAPHQL_MAX_DEPTH: "6",
    GRAPHQL_MAX_ALIASES: "3",
    GRAPHQL_MAX_TOKENS: "200",
    GRAPHQL_MAX_COST: "500",
  });
  token = (await s.signUp("lim")).token;
});
afterAll(async () => s?.close());

const codeOf = (r: { errors?: { extensions?: { code?: string } }[] }) => r.errors?.[0]?.extensions?.code;

describe("GraphQL limits", () => {
  it("accepts the maximum depth and refuses one level more", async () => {
    const ok = deepQuery(6);
    const tooDeep = deepQuery(7);
    expect(countDepth(ok)).toBe(6);
    expect(countDepth(tooDeep)).toBe(7);
    const accepted = await s.graphql(ok, { id: "none" }, token);
    expect(accepted.errors).toBeUndefined();
    const refused = await s.graphql(tooDeep, { id: "none" }, token);
    expect(refused.status).toBe(400);
    expect(codeOf(refused)).toMatch(/BAD_USER_INPUT|GRAPHQL_VALIDATION_FAILED/);
    expect(refused.errors?.[0].message).toMatch(/depth/i);
  });

  it("accepts 3 aliases and refuses 4", async () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: me { id }`).join(" ")} }`;
    expect((await s.graphql(aliases(3), {}, token)).errors).toBeUndefined();
    const refused = await s.graphql(aliases(4), {}, token);
    expect(refused.errors?.[0].message).toMatch(/alias/i);
  });

  it("refuses a document with too many tokens", async () => {
    // 5 tokens ({ me { … } }) + `id` once or twice + n spreads of 2 tokens (`...`, `F`) + 7 for the
    // fragment (`fragment F on User { id }`): 2 ids + 93 spreads = 200 tokens pass, 3 ids = 201 are
    // refused. (Spreads, not copies of one field: more than 30 copies are refused on their own.)
    const query = (ids: number) => `{ me { ${"id ".repeat(ids)}${"...F ".repeat(93)}} } fragment F on User { id }`;
    expect((await s.graphql(query(2), {}, token)).errors).toBeUndefined();
    const refused = await s.graphql(query(3), {}, token);
    expect(refused.status).toBe(400);
    expect(refused.errors?.[0].message).toMatch(/token/i);
  });

  it("refuses an operation whose cost is over the limit", async () => {
    const fields = Array.from(
      { length: 3 },
      (_, i) =>
        `r${i}: restaurants(first: 100) { nodes { id title owner { id username } latestComment { id author { id } } } }`,
    ).join(" ");
    const refused = await s.graphql(`{ ${fields} }`, {}, token);
    expect(refused.errors?.[0].message).toMatch(/cost/i);
  });

  it("does not take batched requests", async () => {
    const res = await s.fetch("/graphql", {
      method: "POST",
      token,
      json: [{ query: "{ me { id } }" }, { query: "{ me { id } }" }],
    });
    expect(res.status).toBe(400);
  });
});

describe("production settings", () => {
  let prod: TestServer;
  beforeAll(async () => {
    prod = await startServer({ NODE_ENV: "production", GRAPHQL_INTROSPECTION: "false" });
  });
  afterAll(async () => prod?.close());

  it("turns off field suggestions and (by setting) introspection", async () => {
    const t = (await prod.signUp("p")).token;
    const typo = await prod.graphql(`{ me { usernam } }`, {}, t);
    expect(typo.errors?.[0].message).not.toMatch(/Did you mean/);
    const introspection = await prod.graphql(`{ __schema { types { name } } }`, {}, t);
    expect(introspection.errors?.[0].message).toMatch(/introspection/i);
  });

  it("keeps suggestions in development", async () => {
    const typo = await s.graphql(`{ me { usernam } }`, {}, token);
    expect(typo.errors?.[0].message).toMatch(/Did you mean "username"/);
  });
});
