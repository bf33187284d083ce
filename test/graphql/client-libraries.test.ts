// The GraphQL client libraries frontends use, as they are, against the real server: an answer,
// a document that does not validate and variables that do not coerce each reach the caller the way
// the library reports them (data; GraphQL errors with our code), whatever HTTP status rules the
// server follows for application/json (request-error-status.ts).
import { ApolloClient, CombinedGraphQLErrors, gql, HttpLink, InMemoryCache } from "@apollo/client";
import { cacheExchange, createClient, fetchExchange } from "@urql/core";
import { ClientError, GraphQLClient } from "graphql-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

const ANSWERED = "query Me { me { username } }";
const INVALID = "query Me { me { nickname } }";
const UNCOERCED = "query Page($first: Int) { restaurants(first: $first) { totalCount } }";
/** Each failing request: a document that does not validate, then variables that do not coerce. */
const FAILING: [string, Record<string, unknown>][] = [
  [INVALID, {}],
  [UNCOERCED, { first: "ten" }],
];

let s: TestServer;
let user: { token: string; username: string };
beforeAll(async () => {
  s = await startServer();
  user = await s.signUp("client");
});
afterAll(async () => s?.close());

const headers = () => ({ authorization: `Bearer ${user.token}` });
const codes = (errors: readonly { extensions?: Record<string, unknown> }[]) => errors.map((e) => e.extensions?.code);

describe("graphql-request", () => {
  const client = () => new GraphQLClient(`${s.url}/graphql`, { headers: headers() });

  it("answers, and throws a ClientError carrying our errors", async () => {
    expect(await client().request(ANSWERED)).toEqual({ me: { username: user.username } });
    for (const [document, variables] of FAILING) {
      const error = await client()
        .request(document, variables)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClientError);
      expect(codes((error as ClientError).response.errors ?? [])).toEqual(["BAD_USER_INPUT"]);
    }
  });
});

describe("urql", () => {
  // urql 6 sends queries as GET by default: with the token's Authorization header, CSRF
  // prevention lets them through (a browser preflights that header).
  const client = () =>
    createClient({
      url: `${s.url}/graphql`,
      exchanges: [cacheExchange, fetchExchange],
      fetchOptions: () => ({ headers: headers() }),
    });

  it("answers, and reports our errors as graphQLErrors", async () => {
    const sent: string[] = [];
    const watched = createClient({
      url: `${s.url}/graphql`,
      exchanges: [cacheExchange, fetchExchange],
      fetchOptions: () => ({ headers: headers() }),
      fetch: (input, init) => (sent.push(init?.method ?? "GET"), fetch(input, init)),
    });
    expect((await watched.query(ANSWERED, {}).toPromise()).data).toEqual({
      me: { __typename: "User", username: user.username },
    });
    expect(sent).toEqual(["GET"]);
    for (const [document, variables] of FAILING) {
      const result = await client().query(document, variables).toPromise();
      expect(result.data).toBeUndefined();
      expect(codes(result.error?.graphQLErrors ?? [])).toEqual(["BAD_USER_INPUT"]);
    }
  });
});

describe("Apollo Client", () => {
  const client = () =>
    new ApolloClient({
      link: new HttpLink({ uri: `${s.url}/graphql`, headers: headers() }),
      cache: new InMemoryCache(),
    });

  it("answers, and rejects with CombinedGraphQLErrors carrying our errors", async () => {
    expect((await client().query({ query: gql(ANSWERED) })).data).toEqual({
      me: { __typename: "User", username: user.username },
    });
    for (const [document, variables] of FAILING) {
      const error = await client()
        .query({ query: gql(document), variables })
        .catch((e: unknown) => e);
      expect(CombinedGraphQLErrors.is(error)).toBe(true);
      expect(codes((error as CombinedGraphQLErrors).errors)).toEqual(["BAD_USER_INPUT"]);
    }
  });
});
