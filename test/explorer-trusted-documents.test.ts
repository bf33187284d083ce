// The IDE under TRUSTED_DOCUMENTS=enforce, as the README tells an operator to use it: the schema
// (introspection is text too) is refused to everybody, then an admin's token in the Headers pane
// and the re-fetch button bring the schema, and the admin's queries run. Headless Chromium with
// no internet access, as test/explorer.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  EXPLORER_EDITORS,
  openOfflineBrowser,
  replaceEditorText,
  replaceQuery,
  type OfflineBrowser,
} from "./helpers/offline-browser.ts";
import { startServer, type TestServer } from "./helpers/server.ts";

const folder = mkdtempSync(path.join(tmpdir(), "explorer-manifest-"));
const manifest = path.join(folder, "persisted-documents.json");
writeFileSync(manifest, JSON.stringify({ me: "query Me { me { username } }" }));

let s: TestServer;
let browser: OfflineBrowser;
let page: Page;
let adminToken: string;

beforeAll(async () => {
  s = await startServer({ TRUSTED_DOCUMENTS: "enforce", TRUSTED_DOCUMENTS_MANIFEST: manifest });
  // The REST shim's documents are trusted: sign the admin up there.
  const signedUp = await s.fetch("/users", {
    method: "POST",
    json: { username: "operator", password: "password-1", first_name: "Op" },
  });
  adminToken = (await signedUp.json()).access_token;
  await s.db.prisma.user.update({ where: { username: "operator" }, data: { role: "ADMIN" } });
  browser = await openOfflineBrowser();
  page = browser.page;
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
  rmSync(folder, { recursive: true, force: true });
});

const { query: QUERY_EDITOR, headers: HEADERS_EDITOR, response: RESPONSE } = EXPLORER_EDITORS;
const replaceText = (selector: string, value: string) => replaceEditorText(page, selector, value);

// The page is 9 MB of script: on a loaded machine its first introspection can take a while.
const introspection = () =>
  page.waitForResponse((r) => (r.request().postData() ?? "").includes("IntrospectionQuery"), { timeout: 120_000 });

it("refuses the schema to an anonymous IDE, and serves it and runs any text once an admin's token is in the Headers pane", async () => {
  const first = introspection();
  await page.goto(s.url + "/explorer", { timeout: 120_000 });
  await page.locator(QUERY_EDITOR).waitFor();
  const refused = (await (await first).json()) as { errors?: { extensions?: { code?: string } }[] };
  expect(refused.errors?.[0]?.extensions?.code).toBe("DOCUMENT_NOT_TRUSTED");

  await page.getByRole("button", { name: "Headers" }).click();
  await replaceText(HEADERS_EDITOR, JSON.stringify({ Authorization: `Bearer ${adminToken}` }));
  // GraphiQL reads its editors after a debounce: repeat the click (a few times at most) until the schema comes.
  let schema: { data?: { __schema?: { queryType: { name: string } } } } = {};
  for (let attempt = 1; !schema.data && attempt <= 4; attempt++) {
    const again = introspection();
    await page.getByRole("button", { name: /Re-fetch GraphQL schema/ }).click();
    schema = (await (await again).json()) as typeof schema;
  }
  expect(schema.data?.__schema?.queryType.name).toBe("Query");

  await replaceQuery(page, QUERY_EDITOR, "{ me { username role } }");
  for (let attempt = 1; attempt <= 4; attempt++) {
    await page.locator("button.graphiql-execute-button").click();
    try {
      await page.waitForFunction(
        (selector) => document.querySelector(selector)?.textContent?.includes("ADMIN"),
        RESPONSE,
        { timeout: 10_000 },
      );
      break;
    } catch (error) {
      if (attempt === 4) throw error;
    }
  }
  expect((await page.locator(RESPONSE).innerText()).replace(/\u00a0/g, " ")).toContain('"username": "operator"');
  expect(browser.leftLoopback).toEqual([]);
}, 180_000);
