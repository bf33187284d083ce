// The front door in headless Chromium with every request that would leave 127.0.0.1 blocked:
// GET / is a page of the service's own that leads to the REST reference, and /docs renders every
// operation of /openapi.json, shows each parameter's description, and runs the example request of
// one (from the demo data, which this server holds) under a REST_PREFIXES prefix with a token,
// needing nothing from elsewhere and logging no error (a script, style or image its policy refused
// would log one). HTTP-level behaviour (HTML or JSON, caching, encodings, limits): test/http/front-door.test.ts.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REST_EXAMPLES } from "../src/contract/examples.ts";
import { seededDemoData, type DemoData } from "./helpers/demo-database.ts";
import { openOfflineBrowser, type OfflineBrowser } from "./helpers/offline-browser.ts";
import type { TestServer } from "./helpers/server.ts";

const METHODS = ["get", "post", "put", "patch", "delete"];

let demo: DemoData;
let s: TestServer;
let browser: OfflineBrowser;
let page: Page;
beforeAll(async () => {
  demo = await seededDemoData();
  s = await demo.serve({ REST_PREFIXES: "/v1,/api" });
  browser = await openOfflineBrowser();
  page = browser.page;
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await demo?.drop();
});

describe("in headless Chromium with no internet access", () => {
  it("opens / as the service's own page, with the token commands for the address the browser used, and leads to /docs", async () => {
    await page.goto(s.url + "/");
    const service = (await (await s.fetch("/")).json()) as { name: string; version: string };
    expect(await page.locator("h1").innerText()).toBe(`${service.name} ${service.version}`);
    // The page's one script put this address in (the server only knew it listened on port 0).
    const commands = await page.locator("code").filter({ hasText: "curl" }).allInnerTexts();
    expect(commands).toHaveLength(2);
    expect(commands[0]).toMatch(new RegExp(`^curl -s ${s.url}/users `));
    expect(commands[1]).toMatch(new RegExp(`^TOKEN=\\$\\(curl -s ${s.url}/auth/token `));

    await page.getByRole("link", { name: "REST reference" }).click();
    await page.waitForURL(`${s.url}/docs`);
    await page.locator(".opblock").first().waitFor();
    expect(browser.leftLoopback).toEqual([]);
    expect(browser.problems).toEqual([]);
  }, 60_000);

  it("shows every operation of /openapi.json at /docs, and the prefixes as servers", async () => {
    const doc = (await (await s.fetch("/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => METHODS.includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    await page.goto(s.url + "/docs/");
    await page.locator(".opblock").first().waitFor();
    const shown = await page
      .locator(".opblock")
      .evaluateAll((blocks) =>
        blocks.map(
          (b) =>
            `${b.querySelector(".opblock-summary-method")?.textContent} ${b.querySelector(".opblock-summary-path")?.getAttribute("data-path")}`,
        ),
      );
    expect(documented.length).toBeGreaterThanOrEqual(19);
    expect(shown.sort()).toEqual(documented.sort());
    expect(
      await page
        .locator(".servers select option")
        .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)),
    ).toEqual(["/", "/v1", "/api"]);
    expect(browser.leftLoopback).toEqual([]);
    expect(browser.problems).toEqual([]);
  }, 60_000);

  it("runs GET /restaurants' example under /api with the token given to Authorize, and shows the demo data it finds", async () => {
    const { token } = await s.signUp("docs");
    await page.goto(s.url + "/docs");
    await page.locator(".opblock").first().waitFor();

    await page.locator("button.authorize").first().click();
    const bearer = page.locator(".auth-container").filter({ hasText: "Bearer" });
    await bearer.locator("input").fill(token);
    await bearer.getByRole("button", { name: "Apply credentials" }).click();
    await bearer.getByRole("button", { name: "Close" }).click();

    await page.locator(".servers select").selectOption("/api");
    const operation = page.locator("#operations-restaurants-searchRestaurants");
    await operation.locator(".opblock-summary-control").click();
    // Each parameter's description is in the table, beside its name (it was in the schema, unseen).
    const row = (name: string) => operation.locator(`tr[data-param-name="${name}"]`);
    expect(await row("q").locator(".parameters-col_description").innerText()).toContain(
      "case-insensitive part of the title",
    );
    expect(await row("city").locator(".parameters-col_description").innerText()).toContain("a city, e.g. Lisbon");
    await operation.getByRole("button", { name: "Try it out" }).click();
    // The example request is filled in: search, city and limit from the demo data.
    const example = REST_EXAMPLES["Search restaurants"]!.query!;
    expect(await row("search").locator("input").inputValue()).toBe(example.search);
    const sent = page.waitForRequest((r) => new URL(r.url()).pathname === "/api/restaurants");
    await operation.getByRole("button", { name: "Execute" }).click();
    const request = await sent;
    expect(request.headers().authorization).toBe(`Bearer ${token}`);
    expect(new URL(request.url()).searchParams.get("search")).toBe(example.search);
    const response = operation.locator(".live-responses-table .response");
    await response.locator(".response-col_status").filter({ hasText: "200" }).waitFor();
    const answer = await response.innerText();
    expect(answer).toContain("Casa Fig"); // in Lisbon; the search's third match is in Tokyo
    expect(answer).not.toContain("Nomad & Pepper");

    expect(browser.leftLoopback).toEqual([]);
    expect(browser.problems).toEqual([]);
  }, 60_000);
});
