// openapi-route (src/rest/openapi/openapi-route.ts) on a bare instance: the REST interface's OpenAPI document at
// /openapi.json and under each prefix, saying which routes need a token under this
// configuration. The document's content is tested in test/rest.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { buildSchema } from "../../src/graphql/schema.ts";
import { openApiRoutePlugin } from "../../src/rest/openapi/openapi-route.ts";
import { routes } from "../../src/rest/routes/index.ts";

const schema = buildSchema();

async function document(options: { prefixes?: string[]; anonymousReads?: boolean }, url = "/openapi.json") {
  const app = Fastify();
  await app.register(openApiRoutePlugin, { schema, routes, ...options });
  const res = await app.inject({ url });
  expect(res.statusCode).toBe(200);
  expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
  return res.json();
}

/** The security requirements of GET /restaurants (a read that ANONYMOUS_READS opens). */
const restaurantsSecurity = (doc: any) => doc.paths["/restaurants"].get.security;

describe("openapi plugin", () => {
  it("serves the document at /openapi.json and under each prefix", async () => {
    const doc = await document({ prefixes: ["/v1"] }, "/v1/openapi.json");
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(doc.paths)).toContain("/restaurants");
  });

  it("marks anonymous reads as needing no token only when anonymousReads is on", async () => {
    expect(restaurantsSecurity(await document({}))).toBeUndefined(); // the document's own: a token
    expect(restaurantsSecurity(await document({ anonymousReads: true }))).toContainEqual({}); // an empty requirement: optional
  });
});
