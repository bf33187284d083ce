// Compiled execution (src/graphql/execution/compiled-execution.ts): an operation runs on graphql-js until it
// repeats, then compiled (graphql-jit), on both faces. Both ways give the same answers, errors and
// statuses included; a one-off document never costs a compilation; the operations kept compiled
// are bounded. (The Node 24 CI suite also runs every test with every operation compiled.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_COMPILED, MAX_COMPILED_FIELDS } from "../../src/graphql/execution/compiled-execution.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let usual: TestServer; // the default: compiled from the second execution
let interpreted: TestServer; // GRAPHQL_COMPILE_AFTER=0: always graphql-js
let compiled: TestServer; // GRAPHQL_COMPILE_AFTER=1: compiled from the first execution
let token: string; // on interpreted's database (compiled shares it)
let usualToken: string;
let restaurantId: string; // usual's

/** A user with three restaurants, each with a comment; its token and last restaurant. */
async function owner(s: TestServer) {
  const { token } = await s.signUp("owner");
  let id = "";
  for (let i = 0; i < 3; i++) {
    id = (
      await s.graphql(
        `mutation($t: String!) { createRestaurant(input: { title: $t, address: { city: "Pune" } }) { id } }`,
        { t: `Place ${i}` },
        token,
      )
    ).data.createRestaurant.id;
    await s.graphql(
      `mutation($id: ID!) { addComment(restaurantId: $id, input: { title: "Good", body: "b", rating: 4 }) { id } }`,
      { id },
      token,
    );
  }
  return { token, id };
}

// A small response ceiling on both sides of the comparison, so that its error can be compared too.
const CEILING = { GRAPHQL_MAX_RESPONSE_OBJECTS: "100" };

const DEFAULT = { GRAPHQL_COMPILE_AFTER: "2" };

beforeAll(async () => {
  usual = await startServer(DEFAULT); // explicit: a CI suite sets GRAPHQL_COMPILE_AFTER=1 for the others
  interpreted = await startServer({ GRAPHQL_COMPILE_AFTER: "0", ...CEILING });
  compiled = await startServer({ GRAPHQL_COMPILE_AFTER: "1", ...CEILING }, { alongside: interpreted });
  ({ token: usualToken, id: restaurantId } = await owner(usual));
  ({ token } = await owner(interpreted));
});
afterAll(async () => {
  await compiled?.close();
  await interpreted?.close();
  await usual?.close();
});

/** graphql_executions_total by mode, and graphql_compiled_operations, from /metrics. */
async function executions(s: TestServer) {
  const text = await (await s.fetch("/metrics")).text();
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  return {
    compiled: value(/^graphql_executions_total\{mode="compiled"\} (\d+)$/m),
    interpreted: value(/^graphql_executions_total\{mode="interpreted"\} (\d+)$/m),
    kept: value(/^graphql_compiled_operations (\d+)$/m),
  };
}

describe("when an operation runs compiled", () => {
  it("runs a document on graphql-js the first time and compiled from its second execution on", async () => {
    const query = `query Once($id: ID!) { restaurant(id: $id) { id title } }`;
    const before = await executions(usual);
    const first = await usual.graphql(query, { id: restaurantId }, usualToken);
    expect(await executions(usual)).toEqual({ ...before, interpreted: before.interpreted + 1 });
    const second = await usual.graphql(query, { id: restaurantId }, usualToken);
    const third = await usual.graphql(query, { id: restaurantId }, usualToken);
    expect(await executions(usual)).toEqual({
      compiled: before.compiled + 2,
      interpreted: before.interpreted + 1,
      kept: before.kept + 1,
    });
    expect(second.body).toEqual(first.body);
    expect(third.body).toEqual(first.body);
  });

  it("never compiles a document sent once, however many different ones arrive", async () => {
    const before = await executions(usual);
    for (let i = 0; i < 40; i++) {
      const r = await usual.graphql(`{ r${i}: restaurant(id: "${restaurantId}") { id } }`, undefined, usualToken);
      expect(r.data[`r${i}`].id).toBe(restaurantId);
    }
    expect(await executions(usual)).toEqual({ ...before, interpreted: before.interpreted + 40 });
  });

  it("compiles at most GRAPHQL_COMPILES_PER_MINUTE a minute: many documents sent twice each cost that many, no more", async () => {
    const s = await startServer({ ...DEFAULT, GRAPHQL_COMPILES_PER_MINUTE: "5" });
    try {
      const { token } = await s.signUp("budget");
      for (let i = 0; i < 20; i++) {
        for (let k = 0; k < 2; k++)
          expect(
            (await s.graphql(`query($n: Int) { b${i}: restaurants(first: $n) { totalCount } }`, { n: 1 }, token))
              .status,
          ).toBe(200);
      }
      const after = await executions(s);
      expect(after.kept).toBe(5);
      expect(after.compiled).toBe(5);
    } finally {
      await s.close();
    }
  });

  it(`never compiles a document of more than ${MAX_COMPILED_FIELDS} fields, however often it is sent`, async () => {
    const before = await executions(usual);
    const aliases = Array.from(
      { length: 29 },
      (_, i) => `a${i}: restaurants(first: 1) { nodes { id title rating commentCount createdAt updatedAt } }`,
    ).join(" ");
    for (let k = 0; k < 3; k++) expect((await usual.graphql(`{ ${aliases} }`, undefined, usualToken)).status).toBe(200);
    expect(await executions(usual)).toEqual({ ...before, interpreted: before.interpreted + 3 });
  });

  it("runs the REST shim's routes compiled from their second request on, with the same answer", async () => {
    const before = await executions(usual);
    const first = await usual.fetch(`/restaurants/${restaurantId}`, { token: usualToken });
    const second = await usual.fetch(`/restaurants/${restaurantId}`, { token: usualToken });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(await second.json()).toEqual(await first.json());
    const after = await executions(usual);
    expect(after.interpreted - before.interpreted).toBe(1);
    expect(after.compiled - before.compiled).toBe(1);
  });

  it(`keeps at most ${MAX_COMPILED} operations compiled; the least recently run one goes back to counting`, async () => {
    const s = await startServer({ ...DEFAULT, GRAPHQL_COMPILES_PER_MINUTE: "1000" });
    try {
      const { token } = await s.signUp("many");
      const documentNumber = (i: number) => `{ d${i}: __typename }`;
      const twice = async (i: number) => {
        for (let k = 0; k < 2; k++)
          expect((await s.graphql(documentNumber(i), undefined, token)).data).toEqual({ [`d${i}`]: "Query" });
      };
      for (let i = 0; i <= MAX_COMPILED; i++) await twice(i);
      const full = await executions(s);
      expect(full.kept).toBe(MAX_COMPILED);
      // Document 0 was evicted by the last one: it runs on graphql-js again, once, then compiles.
      await twice(0);
      expect(await executions(s)).toEqual({
        compiled: full.compiled + 1,
        interpreted: full.interpreted + 1,
        kept: MAX_COMPILED,
      });
    } finally {
      await s.close();
    }
  });
});

describe("compiled and interpreted execution give the same answers", () => {
  // Each is sent to a server that compiles it at once and to one that never compiles, on the same database.
  const cases: [string, string, Record<string, unknown>?, boolean?][] = [
    [
      "a page through fragments, aliases, @include and nested relations",
      `fragment Who on User { id username firstName rating }
       query Page($first: Int, $withComment: Boolean!) {
         restaurants(first: $first) {
           totalCount
           pageInfo { hasNextPage endCursor }
           edges { cursor node { ...on Restaurant { id } } }
           nodes { id name: title rating commentCount address { city } owner { ...Who }
             latestComment @include(if: $withComment) { title rating author { ...Who } } }
         }
       }`,
      { first: 2, withComment: true },
    ],
    ["a restaurant nobody has", `query($id: ID!) { restaurant(id: $id) { id } }`, { id: "nobody" }],
    [
      "an id no row can have (BAD_USER_INPUT on its field)",
      `query($id: ID!) { restaurant(id: $id) { id title } }`,
      { id: "bad\u0000id" },
    ],
    ["a page size over the maximum", `{ restaurants(first: 101) { nodes { id } } }`],
    [
      "variables that do not coerce (graphql-js's message, 400)",
      `query($first: Int) { restaurants(first: $first) { nodes { id } } }`,
      { first: "ten" },
    ],
    ["a missing required variable", `query($id: ID!) { restaurant(id: $id) { id } }`, {}],
    [
      "the response ceiling",
      `{ a: restaurants(first: 60) { nodes { id } } b: restaurants(first: 60) { nodes { id } } }`,
    ],
    [
      "a mutation without a token (UNAUTHENTICATED, nothing stored)",
      `mutation($id: ID!) { addComment(restaurantId: $id, input: { title: "t", body: "b", rating: 3 }) { id } }`,
      undefined,
      false,
    ],
    [
      "a mutation with bad input (every field named)",
      `mutation($id: ID!) { addComment(restaurantId: $id, input: { title: "", body: "", rating: 9 }) { id } }`,
    ],
    ["introspection and __typename", `{ __typename __schema { queryType { name } } }`],
  ];

  it.each(cases)("%s", async (_, query, variables, withToken = true) => {
    const id = (await interpreted.graphql(`{ restaurants(first: 1) { nodes { id } } }`, undefined, token)).data
      .restaurants.nodes[0].id;
    const vars = variables ?? { id };
    const sent = (s: TestServer) => s.graphql(query, vars, withToken ? token : undefined);
    const [a, b] = [await sent(interpreted), await sent(compiled)];
    expect({ status: b.status, body: b.body }).toEqual({ status: a.status, body: a.body });
    // The comparison must cover both ways: the second server ran it compiled.
    expect((await executions(compiled)).compiled).toBeGreaterThan(0);
    expect((await executions(interpreted)).compiled).toBe(0);
  });

  it("the REST shim answers the same, errors included", async () => {
    for (const path of [`/restaurants?limit=2`, `/restaurants/nobody`, `/restaurants?limit=1000`]) {
      const [a, b] = [await interpreted.fetch(path, { token }), await compiled.fetch(path, { token })];
      expect({ path, status: b.status, body: await b.json() }).toEqual({
        path,
        status: a.status,
        body: await a.json(),
      });
    }
  });
});
