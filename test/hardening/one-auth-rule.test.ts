// Who may call what is declared once, on the schema's root fields (@public, @requireAuth), and
// every face reads it from there with the same words: /graphql, the REST shim (before any field
// check), and the check of a token before an upload's body. No second list of public routes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "graphql";
import { startServer, type TestServer } from "../helpers/server.ts";
import { buildSchema } from "../../src/graphql/schema.ts";
import { compileRoutes } from "../../src/rest/execute.ts";
import { testRunner } from "../helpers/runner.ts";
import { routes } from "../../src/rest/routes/index.ts";
import { documentAccess } from "../../src/graphql/policy/auth.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => s?.close());

/** The refusal of each face, for a request with `token` (none, or one the server never issued). */
async function refusals(token?: string) {
  const graphql = await s.graphql(`{ restaurants(first: 1) { nodes { id } } }`, undefined, token);
  const rest = await s.fetch("/restaurants", { token });
  // A multipart /graphql request needs its token before the body (src/http/token-before-body.ts).
  const upload = await s.fetch("/graphql", {
    method: "POST",
    token,
    headers: { "content-type": "multipart/form-data; boundary=x", "apollo-require-preflight": "true" },
    body: "--x--\r\n",
  });
  return {
    graphql: { code: graphql.errors?.[0]?.extensions?.code, message: graphql.errors?.[0]?.message },
    rest: { status: rest.status, ...(await rest.json()).error },
    upload: await upload.json().then((body) => ({
      status: upload.status,
      code: body.errors?.[0]?.extensions?.code,
      message: body.errors?.[0]?.message,
    })),
  };
}

describe("one refusal for a caller who must sign in", () => {
  for (const [label, token] of [
    ["no token", undefined],
    ["a token never issued", "x".repeat(43)],
  ] as const) {
    it(`${label}: the same code and words on GraphQL, REST and before an upload's body`, async () => {
      const { graphql, rest, upload } = await refusals(token);
      expect(graphql.code).toBe("UNAUTHENTICATED");
      expect(rest).toEqual({ status: 401, code: "UNAUTHENTICATED", message: graphql.message });
      expect(upload).toEqual({ status: 401, code: "UNAUTHENTICATED", message: graphql.message });
    });
  }
});

describe("the REST routes that need no token are those whose fields are @public", () => {
  it("each compiled route's access is its document's, read from the schema", () => {
    const schema = buildSchema();
    const compiled = compileRoutes(testRunner(schema), routes);
    for (const route of compiled)
      expect(route.access, `${route.method} ${route.path}`).toBe(documentAccess(schema, parse(route.document)));
    const open = compiled.filter((r) => r.access === "public").map((r) => `${r.method} ${r.path}`);
    expect(open.sort()).toEqual(["POST /auth/token", "POST /signin", "POST /users"]);
  });

  it("a public route answers without a token; the others refuse before reading any field", async () => {
    const signIn = await s.fetch("/auth/token", {
      method: "POST",
      json: { username: "nobody_here", password: "wrong password" },
    });
    expect(signIn.status).toBe(401); // wrong credentials, not a missing token
    expect((await signIn.json()).error.message).toBe("username or password is wrong");
    const create = await s.fetch("/restaurants", { method: "POST", json: { title: "" } });
    expect(create.status).toBe(401); // not 400 for the empty title: the token comes first
    expect((await create.json()).error.code).toBe("UNAUTHENTICATED");
  });
});
