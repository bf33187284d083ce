// The Relay app of test/relay/app under TRUSTED_DOCUMENTS=enforce (issue 42 items 1 and 4): relay-compiler
// persists its documents (persistConfig: the screen's query, the @refetchable fragment's node(id:)
// query and the bidirectional connection's pagination query) into the file the service reads as
// its manifest; start-up validates every one of them, and relay-runtime, sending each operation's
// id alone as `doc_id`, refetches a restaurant through node(id:) and pages its comments both ways.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERNAME } from "../../src/seed/dataset.ts";
import { DEFAULT_SEED_PASSWORD, seed } from "../../src/seed/seed.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { compileRelayApp, fetchAndRetain, readFragment, relay, relayArtifacts } from "./relay-harness.ts";

/** The demo user's first restaurant: 11 comments in the demo data. */
const RESTAURANT = "seed-r-00001";

let s: TestServer;
let token: string;
let out: string;
let manifest: Record<string, string>;
let artifacts: Record<string, any> = {};
/** What the network layer sent, and what the server answered. */
const sent: Record<string, unknown>[] = [];
const answered: { data?: any; errors?: unknown[] }[] = [];

beforeAll(async () => {
  out = mkdtempSync(path.join(tmpdir(), "relay-trusted-"));
  const file = path.join(out, "persisted_queries.json");
  compileRelayApp(out, { persistFile: file });
  manifest = JSON.parse(readFileSync(file, "utf8"));
  artifacts = await relayArtifacts(out);
  s = await startServer({ TRUSTED_DOCUMENTS: "enforce", TRUSTED_DOCUMENTS_MANIFEST: file });
  await seed(s.db, { size: "small", uploadDir: s.config.uploadDir, password: DEFAULT_SEED_PASSWORD });
  // The REST shim's sign-in: its documents are trusted, the GraphQL login is not in this manifest.
  const signIn = await s.fetch("/auth/token", {
    method: "POST",
    json: { username: DEMO_USERNAME, password: DEFAULT_SEED_PASSWORD },
  });
  token = (await signIn.json()).access_token;
}, 120_000);
afterAll(async () => {
  await s?.close();
  if (out) rmSync(out, { recursive: true, force: true });
});

/** A Relay environment whose network sends each operation's id alone, as a persisted Relay app does. */
function environment() {
  const network = relay.Network.create(async (params: { id: string }, variables: Record<string, unknown>) => {
    const body = { doc_id: params.id, variables };
    sent.push(body);
    const res = await fetch(`${s.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    const answer = await res.json();
    answered.push(answer);
    return answer;
  });
  return new relay.Environment({ network, store: new relay.Store(new relay.RecordSource()) });
}

describe("relay-compiler's persisted documents as the manifest of TRUSTED_DOCUMENTS=enforce", () => {
  it("holds the screen's query, the node(id:) refetch and the pagination query, none of their texts in the app", () => {
    const queries = ["RestaurantScreenQuery", "RestaurantScreenRefetchQuery", "RestaurantScreenCommentsQuery"];
    for (const name of queries) {
      expect(artifacts[name].params.text).toBeNull();
      expect(manifest[artifacts[name].params.id]).toMatch(new RegExp(`^query ${name}\\b`));
    }
    expect(Object.keys(manifest)).toHaveLength(3);
    expect(manifest[artifacts.RestaurantScreenRefetchQuery.params.id]).toMatch(/node\(id: \$id\)/);
  });

  it("refetches a restaurant through node(id:) by its id alone", async () => {
    const env = environment();
    const data = await fetchAndRetain(env, artifacts.RestaurantScreenQuery, { id: RESTAURANT, first: 2 });
    expect(readFragment(env, artifacts.RestaurantScreen_header, data.restaurant)).toMatchObject({
      id: RESTAURANT,
      commentCount: 11,
    });
    const refetched = await fetchAndRetain(env, artifacts.RestaurantScreenRefetchQuery, { id: RESTAURANT });
    expect(answered.at(-1)).toEqual({
      data: { node: expect.objectContaining({ __typename: "Restaurant", id: RESTAURANT }) },
    });
    // The refetch query's node spreads the header fragment: the store holds it from the node(id:) answer.
    expect(readFragment(env, artifacts.RestaurantScreen_header, refetched.node)).toMatchObject({
      id: RESTAURANT,
      commentCount: 11,
    });
    expect(sent.at(-1)).toEqual({
      doc_id: artifacts.RestaurantScreenRefetchQuery.params.id,
      variables: { id: RESTAURANT },
    });
  });

  it("pages the comments backwards and forwards by the pagination query's id", async () => {
    const env = environment();
    const data = await fetchAndRetain(env, artifacts.RestaurantScreenQuery, { id: RESTAURANT, last: 4 });
    const fragment = artifacts.RestaurantScreen_comments;
    const { paginationRequest, paginationMetadata } = relay.getPaginationMetadata(fragment, "RestaurantScreen");
    const comments = () => readFragment(env, fragment, data.restaurant).comments;
    expect(comments().edges).toHaveLength(4);
    for (let page = 0; page < 2; page++) {
      const variables = relay.getPaginationVariables(
        "backward",
        4,
        comments().pageInfo.startCursor,
        { id: RESTAURANT },
        {},
        paginationMetadata,
      );
      await fetchAndRetain(env, paginationRequest, variables);
    }
    expect(comments().edges).toHaveLength(11);
    expect(comments().pageInfo.hasPreviousPage).toBe(false);
    expect(sent.at(-1)).toMatchObject({ doc_id: paginationRequest.params.id, variables: { last: 4 } });
  });

  it("refuses the same node(id:) sent as any other text", async () => {
    const res = await s.fetch("/graphql", {
      method: "POST",
      token,
      json: { query: `{ node(id: "${RESTAURANT}") { id } }` },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].extensions.code).toBe("DOCUMENT_NOT_TRUSTED");
  });
});
