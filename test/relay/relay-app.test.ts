// Relay against this server, as a Relay app uses it: relay-compiler (the npm package's own
// binary) compiles the documents of test/relay/app (a fragment @refetchable by node(id:), a
// bidirectional @connection) against schema.graphql, and relay-runtime in Node (no React) runs
// what it wrote over real HTTP against the server on the demo data: it refetches a restaurant
// through node(id:) and pages its comments forwards and backwards, Relay merging the pages into
// one connection in its store exactly as usePaginationFragment's loadNext/loadPrevious do.
//
// The compiler writes into a temporary folder at every run, never into git: its artifacts derive
// from schema.graphql and the app's documents, so compiling them here is itself the test that
// the schema still serves Relay (a schema change that breaks it fails here, not in a stale copy).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.ts";
import { compileRelayApp, fetchAndRetain, readFragment, relay, relayArtifacts } from "./relay-harness.ts";
import { seededServer } from "./seeded-server.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The demo user's first restaurant: 11 comments in the demo data. */
const RESTAURANT = "seed-r-00001";

let s: TestServer;
let token: string;
let out: string;
/** What relay-compiler wrote, by artifact name (RestaurantScreenQuery, RestaurantScreen_comments, ...). */
let artifacts: Record<string, any> = {};

/** A Relay environment whose network is POST /graphql on the server, with the demo user's token. */
function environment() {
  const network = relay.Network.create(async (params: { text: string }, variables: Record<string, unknown>) => {
    const res = await fetch(`${s.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: params.text, variables }),
    });
    return res.json();
  });
  return new relay.Environment({ network, store: new relay.Store(new relay.RecordSource()) });
}

type CommentsData = {
  comments: {
    totalCount: number;
    edges: { cursor: string; node: { id: string; title: string } }[];
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  };
};

/**
 * A paginated fragment, as usePaginationFragment drives it: loadNext/loadPrevious send the
 * refetch query Relay wrote with relay-runtime's own pagination variables, and Relay merges the
 * new edges into the connection it holds.
 */
function paginated(env: any, ref: unknown, baseVariables: Record<string, unknown>) {
  const fragment = artifacts.RestaurantScreen_comments;
  const { paginationRequest, paginationMetadata } = relay.getPaginationMetadata(fragment, "RestaurantScreen");
  const data = () => readFragment(env, fragment, ref) as CommentsData;
  const load = async (direction: "forward" | "backward", count: number) => {
    const { pageInfo } = data().comments;
    const cursor = direction === "forward" ? pageInfo.endCursor : pageInfo.startCursor;
    const variables = relay.getPaginationVariables(direction, count, cursor, baseVariables, {}, paginationMetadata);
    await fetchAndRetain(env, paginationRequest, variables);
    return variables as Record<string, unknown>;
  };
  return { data, loadNext: (n: number) => load("forward", n), loadPrevious: (n: number) => load("backward", n) };
}

beforeAll(async () => {
  ({ s, token } = await seededServer());
  out = mkdtempSync(path.join(tmpdir(), "relay-app-"));
  compileRelayApp(out);
  artifacts = await relayArtifacts(out);
});
afterAll(async () => {
  await s?.close();
  if (out) rmSync(out, { recursive: true, force: true });
});

/** The restaurant's comment ids as the API lists them (newest first), read without Relay. */
async function commentIds(): Promise<string[]> {
  const r = await s.graphql(
    `query($id: ID!) { restaurant(id: $id) { comments(first: 100) { nodes { id } } } }`,
    { id: RESTAURANT },
    token,
  );
  return r.data.restaurant.comments.nodes.map((n: { id: string }) => n.id);
}

describe("relay-compiler", () => {
  it("compiles the app's @refetchable fragment and bidirectional @connection against schema.graphql", () => {
    expect(Object.keys(artifacts).sort()).toEqual([
      "RestaurantScreenCommentsQuery",
      "RestaurantScreenQuery",
      "RestaurantScreenRefetchQuery",
      "RestaurantScreen_comments",
      "RestaurantScreen_header",
    ]);
    // The refetch query Relay wrote reads the restaurant again through node(id:).
    expect(artifacts.RestaurantScreenRefetchQuery.params.text).toMatch(/node\(id: \$id\)/);
    const connection = artifacts.RestaurantScreen_comments.metadata.connection[0];
    expect(connection.direction).toBe("bidirectional");
  });

  /** The compiler's complaint about the app's documents against schema.graphql changed by `edit`, or "" when it compiles them. */
  function complaintAgainst(edit: (schema: string) => string): string {
    const dir = mkdtempSync(path.join(tmpdir(), "relay-edited-"));
    try {
      const schema = path.join(dir, "schema.graphql");
      writeFileSync(schema, edit(readFileSync(path.join(ROOT, "schema.graphql"), "utf8")));
      compileRelayApp(dir, { schema });
      return "";
    } catch (error) {
      const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
      return stdout + stderr;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("refuses them without node(id:) or without last/before, as it did before issue 42", () => {
    expect(complaintAgainst((schema) => schema.replace(/^ {2}node\(id: ID!\): Node .*$/m, ""))).toMatch(
      /Invalid use of @refetchable on fragment 'RestaurantScreen_header'/,
    );
    expect(complaintAgainst((schema) => schema.replaceAll("last: Int, before: String, ", ""))).toMatch(
      /Unknown argument 'before' on field 'Restaurant.comments'/,
    );
    expect(complaintAgainst((schema) => schema)).toBe("");
  });
});

describe("relay-runtime in Node against the server", () => {
  it("refetches a restaurant through node(id:) and sees a change made through the API", async () => {
    const env = environment();
    const data = await fetchAndRetain(env, artifacts.RestaurantScreenQuery, { id: RESTAURANT, first: 2 });
    const header = () => readFragment(env, artifacts.RestaurantScreen_header, data.restaurant);
    expect(header()).toMatchObject({ id: RESTAURANT, title: "The Lotus Noodle Bar", commentCount: 11 });
    // Another client renames it (the demo user owns it)...
    const renamed = await s.graphql(
      `mutation($id: ID!) { updateRestaurant(id: $id, input: { title: "The Lotus Noodle Bar (new menu)" }) { id } }`,
      { id: RESTAURANT },
      token,
    );
    expect(renamed.errors).toBeUndefined();
    expect(header().title).toBe("The Lotus Noodle Bar");
    // ...and the screen refetches its fragment as useRefetchableFragment's refetch does.
    const refetched = await fetchAndRetain(env, artifacts.RestaurantScreenRefetchQuery, { id: RESTAURANT });
    expect(refetched.node).toBeTruthy();
    expect(header().title).toBe("The Lotus Noodle Bar (new menu)");
    await s.graphql(
      `mutation($id: ID!) { updateRestaurant(id: $id, input: { title: "The Lotus Noodle Bar" }) { id } }`,
      { id: RESTAURANT },
      token,
    );
  });

  it("pages the comments forwards from the start, Relay merging each page into one connection", async () => {
    const all = await commentIds();
    expect(all).toHaveLength(11);
    const env = environment();
    const data = await fetchAndRetain(env, artifacts.RestaurantScreenQuery, { id: RESTAURANT, first: 4 });
    const pages = paginated(env, data.restaurant, { id: RESTAURANT });
    const ids = () => pages.data().comments.edges.map((e) => e.node.id);
    expect(ids()).toEqual(all.slice(0, 4));
    expect(pages.data().comments.pageInfo.hasNextPage).toBe(true);
    const sent = await pages.loadNext(4);
    // What Relay sends for loadNext: first/after, the backward pair nulled.
    expect(sent).toMatchObject({ first: 4, last: null, before: null });
    expect(ids()).toEqual(all.slice(0, 8));
    await pages.loadNext(4);
    expect(ids()).toEqual(all);
    expect(pages.data().comments.pageInfo.hasNextPage).toBe(false);
  });

  it("pages the comments backwards from the end, Relay prepending each earlier page", async () => {
    const all = await commentIds();
    const env = environment();
    const data = await fetchAndRetain(env, artifacts.RestaurantScreenQuery, { id: RESTAURANT, last: 4 });
    const pages = paginated(env, data.restaurant, { id: RESTAURANT });
    const ids = () => pages.data().comments.edges.map((e) => e.node.id);
    expect(ids()).toEqual(all.slice(-4));
    expect(pages.data().comments.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const sent = await pages.loadPrevious(4);
    // What Relay sends for loadPrevious: last/before, the forward pair nulled.
    expect(sent).toMatchObject({ last: 4, first: null, after: null });
    expect(ids()).toEqual(all.slice(-8));
    await pages.loadPrevious(4);
    expect(ids()).toEqual(all);
    expect(pages.data().comments.pageInfo.hasPreviousPage).toBe(false);
    expect(pages.data().comments.totalCount).toBe(11);
  });
});
