// The GraphQL explorer: served by this server alone (no CDN), compressed and cacheable, reached
// from GET /graphql in a browser, and working in headless Chromium with every request that would
// leave 127.0.0.1 blocked.
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { parse, validate } from "graphql";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPLORER_DEFAULT_QUERY } from "../src/http/pages/explorer.ts";
import { buildSchema } from "../src/graphql/schema.ts";
import { startServer, type TestServer } from "./helpers/server.ts";
import { CountingBus } from "./helpers/live.ts";
import {
  EXPLORER_EDITORS,
  openOfflineBrowser,
  replaceEditorText,
  replaceQuery as replaceQueryIn,
  type OfflineBrowser,
} from "./helpers/offline-browser.ts";
import { getAsSent } from "./helpers/raw-get.ts";

let s: TestServer;
// Counts the server's live listeners: the subscription test writes once the explorer's subscription listens.
const bus = new CountingBus();
beforeAll(async () => {
  s = await startServer({}, { events: bus });
});
afterAll(async () => s?.close());

const rawGet = (pathname: string, headers: Record<string, string> = {}) => getAsSent(s.url + pathname, headers);

describe("GET /explorer", () => {
  it("sends the page gzip-compressed with a validator, and 304 to a browser that has it", async () => {
    const res = await rawGet("/explorer", { "accept-encoding": "gzip, deflate" });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers["cache-control"]).toBe("no-cache");
    const etag = res.headers.etag!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const html = gunzipSync(res.body).toString();
    expect(html).toContain("<title>Restaurants and Groceries GraphQL</title>");
    expect(res.body.length).toBeLessThan(html.length / 3);

    const again = await rawGet("/explorer", { "accept-encoding": "gzip", "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
  });

  it("prefers brotli, falls back to identity, and gives each encoding its own ETag", async () => {
    const br = await rawGet("/explorer", { "accept-encoding": "gzip, br" });
    const plain = await rawGet("/explorer", {});
    const refused = await rawGet("/explorer", { "accept-encoding": "br;q=0, gzip;q=0" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(refused.headers["content-encoding"]).toBeUndefined();
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(br.headers.etag).not.toBe(plain.headers.etag);
    // A gzip ETag does not validate the brotli copy.
    const gz = await rawGet("/explorer", { "accept-encoding": "gzip" });
    expect((await rawGet("/explorer", { "accept-encoding": "br", "if-none-match": gz.headers.etag! })).status).toBe(
      200,
    );
  });

  it("loads nothing from elsewhere: inline scripts and styles only, and a policy that allows only this server", async () => {
    const { headers, body } = await rawGet("/explorer");
    const html = body.toString();
    expect(html.match(/\b(?:src|href|action)\s*=\s*\\?["']?(?:https?:)?\/\//gi)).toBeNull();
    expect(html).not.toMatch(/<link[^>]+rel=["']?stylesheet/i);
    expect(html).not.toMatch(/@import|url\(\s*["']?(?:https?:)?\/\//i);
    const csp = String(headers["content-security-policy"]);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toMatch(/script-src 'sha256-[\w+/=]+'(;|$)/);
  });

  it("opens with a default query that is valid against the schema and says how to send the token", () => {
    expect(validate(buildSchema(), parse(EXPLORER_DEFAULT_QUERY))).toEqual([]);
    expect(EXPLORER_DEFAULT_QUERY).toContain(`"Authorization": "Bearer `);
  });
});

describe("GET /graphql from a browser", () => {
  it("answers HTML that references nothing outside this server and sends the browser to /explorer", async () => {
    const res = await rawGet("/graphql?query=%7B__typename%7D", {
      accept: "text/html,application/xhtml+xml,*/*;q=0.8",
    });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    const html = res.body.toString();
    expect(html.match(/https?:\/\/[^\s"'<>]*/g)).toBeNull();
    expect(html).toContain(`location.replace("/explorer" + location.search`);
    expect(html).toContain(`href="/explorer"`);
  });

  it("still runs operations sent with POST", async () => {
    const r = await s.graphql("{ __typename }");
    expect(r.status).toBe(200);
    expect(r.data).toEqual({ __typename: "Query" });
  });
});

describe("GRAPHQL_EXPLORER=false", () => {
  it("serves no IDE and no landing page, in production too, while operations still run", async () => {
    const off = await startServer({ GRAPHQL_EXPLORER: "false", NODE_ENV: "production" });
    try {
      expect((await off.fetch("/explorer")).status).toBe(404);
      const browser = await off.fetch("/graphql", { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
      expect(browser.headers.get("content-type") ?? "").not.toMatch(/text\/html/);
      expect(await browser.text()).not.toMatch(/explorer|<html/i);
      const r = await off.graphql("{ __typename }");
      expect(r.data).toEqual({ __typename: "Query" });
    } finally {
      await off.close();
    }
  });
});

describe("in headless Chromium with no internet access", () => {
  let browser: OfflineBrowser;
  let page: Page;
  let leftLoopback: string[];
  let pageProblems: string[];

  beforeAll(async () => {
    browser = await openOfflineBrowser();
    ({ page, leftLoopback, problems: pageProblems } = browser);
  });
  afterAll(async () => browser?.close());

  // Monaco draws spaces as no-break spaces.
  const text = async (selector: string) => (await page.locator(selector).innerText()).replace(/\u00a0/g, " ");
  const { query: QUERY_EDITOR, headers: HEADERS_EDITOR, response: RESPONSE } = EXPLORER_EDITORS;
  const replaceText = (selector: string, value: string) => replaceEditorText(page, selector, value);

  const replaceQuery = (value: string) => replaceQueryIn(page, QUERY_EDITOR, value);

  /** Runs what the editor holds and returns the JSON the response pane shows. GraphiQL reads its
   *  editors after a debounce, so on a loaded machine a click can come too early and do nothing:
   *  it is repeated (a few times at most) until the request goes out. */
  async function execute(mustContain: string): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const sent = page.waitForRequest((r) => r.method() === "POST" && (r.postData() ?? "").includes(mustContain), {
        timeout: 10_000,
      });
      await page.locator("button.graphiql-execute-button").click();
      try {
        await sent;
        break;
      } catch (error) {
        if (attempt === 4) throw error;
      }
    }
    await page.waitForFunction(
      ([selector, expected]) =>
        document
          .querySelector(selector)
          ?.textContent?.replace(/\u00a0/g, " ")
          .includes(expected),
      [RESPONSE, `"${mustContain}"`] as const,
    );
    return text(RESPONSE);
  }

  it("opens from GET /graphql, registers a user with a typed mutation, then sends its token from the headers pane", async () => {
    const started = Date.now();
    const introspection = page.waitForResponse((r) => (r.request().postData() ?? "").includes("IntrospectionQuery"));
    await page.goto(s.url + "/graphql");
    await page.locator(QUERY_EDITOR).waitFor();
    const firstRender = Date.now() - started;
    expect(new URL(page.url()).pathname).toBe("/explorer");
    expect(await text(QUERY_EDITOR)).toContain("mutation Register");
    // The schema arrived (docs and completion work): introspection passes the operation limits.
    const schema = (await (await introspection).json()) as any;
    expect(schema.data.__schema.queryType.name).toBe("Query");
    console.info(`explorer: editor ready ${firstRender} ms after GET /graphql, schema ${Date.now() - started} ms`);

    await replaceQuery(
      'mutation { register(input: { username: "from_the_explorer", password: "correct-horse", firstName: "Ex" }) { accessToken user { username } } }',
    );
    const registered = await execute("accessToken");
    expect(registered).toContain('"username": "from_the_explorer"');
    expect(await s.db.prisma.user.count({ where: { username: "from_the_explorer" } })).toBe(1);
    const token = /"accessToken":\s*"([\w-]+)"/.exec(registered)![1];

    await page.getByRole("button", { name: "Headers" }).click();
    await replaceText(HEADERS_EDITOR, JSON.stringify({ Authorization: `Bearer ${token}` }));
    await replaceQuery("{ me { username role } }");
    const me = await execute("role");
    expect(me).toContain('"username": "from_the_explorer"');
    expect(me).toContain('"role": "USER"');

    expect(leftLoopback).toEqual([]);
    expect(pageProblems).toEqual([]);
  }, 180_000);

  it("runs a subscription over WebSocket with the headers pane's token and shows a comment posted through REST", async () => {
    const reader = await s.signUp("watcher");
    const writer = await s.signUp("writer");
    const restaurant = await s.db.prisma.restaurant.create({
      data: { title: "Watched", titleSearch: "watched", ownerId: writer.id },
    });
    const subscribes: string[] = [];
    page.on("websocket", (socket) => socket.on("framesent", ({ payload }) => void subscribes.push(String(payload))));
    if (!page.url().includes("/explorer")) {
      await page.goto(s.url + "/explorer");
      await page.locator(QUERY_EDITOR).waitFor();
    }

    await page.getByRole("button", { name: "Headers" }).click();
    await replaceText(HEADERS_EDITOR, JSON.stringify({ Authorization: `Bearer ${reader.token}` }));
    await replaceQuery(
      `subscription { commentAdded(restaurantId: "${restaurant.id}") { title rating author { username } } }`,
    );
    const listening = bus.listening;
    // As in execute(): a click can come before GraphiQL read its editors; repeat it until the subscription listens.
    for (let attempt = 1; bus.listening <= listening; attempt++) {
      await page.locator("button.graphiql-execute-button").click();
      try {
        await bus.untilListening(listening + 1, 10_000);
      } catch (error) {
        if (attempt === 4) throw new Error(`${(error as Error).message}; frames sent: ${subscribes.join(" | ")}`);
      }
    }
    // (The frames are for the message above only: a socket GraphiQL opened in an earlier test is not watched.)

    const posted = await s.fetch(`/restaurants/${restaurant.id}/comments`, {
      method: "PUT",
      token: writer.token,
      json: { title: "Seen live in the explorer", body: "b", rating: 5 },
    });
    expect(posted.status).toBe(201);
    await page.waitForFunction(
      ([selector, expected]) =>
        document
          .querySelector(selector)
          ?.textContent?.replace(/\u00a0/g, " ")
          .includes(expected),
      [RESPONSE, '"Seen live in the explorer"'] as const,
      { timeout: 15_000 },
    );
    const shown = await text(RESPONSE);
    expect(shown).toContain(`"username": "${writer.username}"`);
    expect(shown).toContain('"rating": 5');

    expect(leftLoopback).toEqual([]);
    expect(pageProblems).toEqual([]);
  }, 180_000);
});
