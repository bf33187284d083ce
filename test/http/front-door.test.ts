// The front door through the real server: GET / (a page for browsers, a JSON index for every other
// client), /playground and /graphiql leading to the IDE, and the REST reference at /docs with its
// assets: all served from memory, compressed, revalidated or cached by content hash, with the
// security headers of every route and the rate limits of every route. (In a browser with no
// internet access: test/front-door.test.ts.)
import { readFileSync } from "node:fs";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { getAsSent } from "../helpers/raw-get.ts";

const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
const service = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ REST_PREFIXES: "/v1,/api" });
});
afterAll(async () => s?.close());

const get = (pathname: string, headers: Record<string, string> = {}) => getAsSent(s.url + pathname, headers);

/** The names of the assets a page loads (src= and href= on this server), in order. */
const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((m) => m[1]!);

/** What every answer carries (src/http/answers/security.ts). */
function expectSecurityHeaders(headers: Record<string, unknown>) {
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["x-frame-options"]).toBe("SAMEORIGIN");
  expect(headers["strict-transport-security"]).toBeDefined();
}

describe("GET /", () => {
  it("gives a JSON client (Accept: application/json, */* or none) a short index whose links all answer", async () => {
    const accepts: Record<string, string>[] = [{ accept: "application/json" }, { accept: "*/*" }, {}];
    const answers = await Promise.all(accepts.map((headers) => get("/", headers)));
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(res.headers.vary).toBe("accept, accept-encoding");
      expectSecurityHeaders(res.headers);
    }
    const index = JSON.parse(answers[2]!.body.toString());
    expect(index).toMatchObject({ name: service.name, version: service.version });
    expect(index.links).toEqual({
      graphql: "/graphql",
      graphqlIde: "/explorer",
      restReference: "/docs",
      openapi: "/openapi.json",
      health: "/healthz",
      readiness: "/readyz",
    });
    for (const [name, href] of Object.entries<string>(index.links)) {
      if (name === "graphql") continue; // answers POST (a GET without a query is a 400)
      expect((await get(href)).status, href).toBe(200);
    }
  });

  it("says how to get a token, and that is how a token is got", async () => {
    const { token } = JSON.parse((await get("/")).body.toString());
    const registered = await s.fetch(token.register.path, { method: token.register.method, json: token.register.json });
    expect(registered.status).toBe(201);
    const signedIn = await s.fetch(token.signIn.path, {
      method: token.signIn.method,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(token.signIn.form).toString(),
    });
    const { access_token } = (await signedIn.json()) as { access_token: string };
    expect(access_token).toBeTruthy();
    expect(token.send).toBe("Authorization: Bearer <access_token>");
    const me = await s.graphql("{ me { username } }", {}, access_token);
    expect(me.data).toEqual({ me: { username: token.register.json.username } });
  });

  it("gives a browser a page of its own with the same links, the token commands, and a policy that allows nothing else", async () => {
    const res = await get("/", { accept: BROWSER, "accept-encoding": "gzip, deflate, br" });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["content-encoding"]).toBe("br");
    expectSecurityHeaders(res.headers);
    const html = brotliDecompressSync(res.body).toString();
    expect(html).toContain(`<title>${service.name} ${service.version}</title>`);
    for (const href of ["/explorer", "/docs", "/openapi.json", "/healthz", "/readyz"])
      expect(html).toContain(`href="${href}"`);
    expect(html).toContain("/users -H &#39;content-type: application/json&#39; -d");
    expect(html).toContain("/auth/token -d &#39;username=ann&amp;password=password-1&#39;");
    // Nothing to load: no src=, no stylesheet, no address of another host.
    expect(html).not.toMatch(/\bsrc=|<link|https?:\/\/(?!127\.0\.0\.1:)/);
    const csp = String(res.headers["content-security-policy"]);
    expect(csp).toMatch(/^default-src 'none'; script-src 'sha256-[\w+/=]+'; style-src 'sha256-[\w+/=]+';/);
    expect(csp).not.toContain("unsafe");
  });

  it("revalidates with an ETag of its own per face and encoding (304, no body)", async () => {
    const html = await get("/", { accept: BROWSER, "accept-encoding": "gzip" });
    const json = await get("/", { "accept-encoding": "gzip" });
    expect(html.headers.etag).not.toBe(json.headers.etag);
    expect(html.headers["cache-control"]).toBe("no-cache");
    const again = await get("/", { accept: BROWSER, "accept-encoding": "gzip", "if-none-match": html.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    // The JSON index's tag does not validate the page.
    expect(
      (await get("/", { accept: BROWSER, "accept-encoding": "gzip", "if-none-match": json.headers.etag! })).status,
    ).toBe(200);
  });
});

describe("/playground and /graphiql", () => {
  it("lead to the IDE, keeping the query string GraphiQL reads", async () => {
    for (const alias of ["/playground", "/graphiql"]) {
      const res = await s.fetch(`${alias}?query=%7B__typename%7D`, { redirect: "manual" });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe("/explorer?query=%7B__typename%7D");
      expect((await s.fetch(alias, { redirect: "manual" })).headers.get("location")).toBe("/explorer");
    }
  });
});

describe("GRAPHQL_EXPLORER=false", () => {
  it("answers 404 at /playground and /graphiql as at /explorer, and the door does not point at the IDE", async () => {
    const off = await startServer({ GRAPHQL_EXPLORER: "false" });
    try {
      for (const path of ["/explorer", "/playground", "/graphiql"])
        expect((await off.fetch(path, { redirect: "manual" })).status, path).toBe(404);
      const index = (await (await off.fetch("/")).json()) as { links: Record<string, string> };
      expect(index.links.graphqlIde).toBeUndefined();
      expect(index.links.restReference).toBe("/docs");
      const page = await (await off.fetch("/", { headers: { accept: BROWSER } })).text();
      expect(page).not.toContain("/explorer");
      expect(page).toContain("POST /graphql");
    } finally {
      await off.close();
    }
  });
});

describe("GET /docs", () => {
  it("is one page at /docs and /docs/, loading only this server's assets, with a strict policy", async () => {
    const page = await get("/docs", { "accept-encoding": "gzip" });
    const slash = await get("/docs/", { "accept-encoding": "gzip" });
    expect(page.status).toBe(200);
    expect(slash.status).toBe(200);
    expect(slash.body.equals(page.body)).toBe(true);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-encoding"]).toBe("gzip");
    expect(page.headers["cache-control"]).toBe("no-cache");
    expectSecurityHeaders(page.headers);
    const html = gunzipSync(page.body).toString();
    expect(html).toContain(`url":"/openapi.json"`);
    expect(html).toContain(`"validatorUrl":null`); // else a badge would load from validator.swagger.io
    expect(html).not.toMatch(/https?:\/\//);
    expect(assetsOf(html)).toEqual([
      expect.stringMatching(/^\/docs\/swagger-ui\.[\w-]{22}\.css$/),
      expect.stringMatching(/^\/docs\/swagger-ui-bundle\.[\w-]{22}\.js$/),
    ]);
    const csp = String(page.headers["content-security-policy"]);
    expect(csp).toMatch(
      /^default-src 'none'; script-src 'self' 'sha256-[\w+/=]+'; style-src 'self'; img-src 'self' data:; connect-src 'self';/,
    );
    expect(csp).not.toContain("unsafe");
  });

  it("serves its assets compressed, named by their content and cached for a year, and nothing else under /docs/", async () => {
    const html = gunzipSync((await get("/docs", { "accept-encoding": "gzip" })).body).toString();
    for (const asset of assetsOf(html)) {
      const plain = await get(asset, { "accept-encoding": "identity" });
      const br = await get(asset, { "accept-encoding": "br, gzip" });
      const gz = await get(asset, { "accept-encoding": "gzip" });
      expect(plain.status).toBe(200);
      expect(plain.headers["content-type"]).toBe(
        asset.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
      );
      expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(plain.body.toString()).not.toContain("sourceMappingURL"); // the maps are not served
      expectSecurityHeaders(plain.headers);
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
      expect(br.body.length).toBeLessThan(plain.body.length / 3);
      expect((await get(asset, { "accept-encoding": "br", "if-none-match": br.headers.etag! })).status).toBe(304);
    }
    const unknown = await s.fetch("/docs/swagger-ui-bundle.js");
    expect(unknown.status).toBe(404);
  });
});

describe("rate limits", () => {
  it("count the door and the reference like every route", async () => {
    const limited = await startServer({ RATE_LIMIT_MAX: "3" });
    try {
      for (const path of ["/", "/docs"]) {
        // A fresh token per path: each gets its own bucket of 3.
        const { token } = await limited.signUp("door");
        const statuses = [];
        for (let i = 0; i < 4; i++) statuses.push((await limited.fetch(path, { token })).status);
        expect(statuses, path).toEqual([200, 200, 200, 429]);
      }
    } finally {
      await limited.close();
    }
  });
});
