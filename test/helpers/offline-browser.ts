// Headless Chromium (Debian's package, driven by playwright-core) as a machine with no internet
// access: every request not addressed to 127.0.0.1 is refused and remembered, and every error or
// warning a page logs (a blocked script, style, font or image shows up there, not as a failure)
// is kept, so a test can say that a page needed nothing from elsewhere and complained of nothing.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export type OfflineBrowser = {
  context: BrowserContext;
  /** The context's first page; its console and errors are watched. */
  page: Page;
  /** URLs the pages asked for elsewhere than 127.0.0.1 (each refused). */
  leftLoopback: string[];
  /** Errors and warnings the watched page logged, and errors it threw. */
  problems: string[];
  close(): Promise<void>;
};

export async function openOfflineBrowser(): Promise<OfflineBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: the browser tests need it. ` +
        "Install Debian's package: apt-get update && apt-get install -y chromium (or set CHROMIUM_PATH).",
    );
  }
  // Playwright refuses --user-data-dir among the args: the profile folder is its first argument.
  const profile = mkdtempSync(path.join(tmpdir(), "gw-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const leftLoopback: string[] = [];
  const problems: string[] = [];
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === "127.0.0.1") return route.continue();
    leftLoopback.push(url.href);
    return route.abort("internetdisconnected");
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  return {
    context,
    page,
    leftLoopback,
    problems,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The explorer's Monaco editors (GraphiQL 5), for tests that type into it and read its answers. */
export const EXPLORER_EDITORS = {
  query: ".graphiql-query-editor .monaco-editor .view-lines",
  headers: '.monaco-editor[data-uri$="headers.json"] .view-lines',
  response: ".graphiql-response .view-lines",
};

/** Replaces what an editor holds. insertText: typed keys would get Monaco's auto-closed brackets and quotes added. */
export async function replaceEditorText(page: Page, selector: string, value: string) {
  await page.locator(selector).click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(value);
}

/** Replaces the IDE's operation, then waits until GraphiQL has parsed it (it mirrors it into ?query=):
 *  until then the run button still sees the old document. On a loaded machine the keys can land
 *  before the editor takes them (CI saw ?query= never change): the replacement is repeated a few
 *  times at most. */
export async function replaceQuery(page: Page, selector: string, value: string) {
  for (let attempt = 1; ; attempt++) {
    await replaceEditorText(page, selector, value);
    try {
      await page.waitForFunction((expected) => new URLSearchParams(location.search).get("query") === expected, value, {
        timeout: 10_000,
      });
      return;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}
