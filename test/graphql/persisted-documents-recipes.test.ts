// The frontend recipes of docs/persisted-documents.md and the README's "For frontend teams", run
// as a frontend team would (issue 42 items 1, 2 and 5):
// - examples/typed-client, copied as it is: GraphQL Code Generator's client preset generates its
//   typed documents and the manifest; tsc accepts the app and refuses a wrong variable; the app
//   runs against the service enforcing that very manifest, on the demo data (npm run seed).
// - Relay: relay-compiler persists a small app's query (its persistConfig file is the manifest),
//   and relay-runtime fetches it by `doc_id`.
// - Every shell example marked `<!-- example: run by <this file> (with SETTINGS) -->` in both
//   documents (the convention of test/helpers/doc-examples.ts) runs with bash and
//   curl against a service with those settings on the demo data, and prints what the document
//   shows after it.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Environment, fetchQuery, Network, RecordSource, Store, type ConcreteRequest } from "relay-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SEED_PASSWORD, seed } from "../../src/seed/seed.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = path.join(ROOT, "node_modules/.bin");

// A copy laid out as the repository is (the example reads ../../schema.graphql), using its node_modules.
const work = mkdtempSync(path.join(tmpdir(), "frontend-recipes-"));
const example = path.join(work, "examples/typed-client");
const manifest = path.join(example, "src/gql/persisted-documents.json");
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Starts a service with these settings on the demo data (what `npm run seed` writes). */
async function demoService(env: Record<string, string>): Promise<TestServer> {
  const s = await startServer(env);
  await seed(s.db, { size: "small", uploadDir: s.config.uploadDir, password: DEFAULT_SEED_PASSWORD });
  return s;
}

/** A document's settings, with the example's paths pointing into the generated copy. */
function settings(line: string): Record<string, string> {
  if (line === "the defaults") return {};
  return Object.fromEntries(
    line.split(/\s+/).map((pair) => {
      const [name, value] = pair.split("=");
      return [name, value.replace(/^examples\/typed-client\//, `${example}/`)];
    }),
  );
}

type Example = { file: string; settings: string; script: string; shown: string | undefined };

/** The marked shell examples of a document, each with the block right after it (what it prints). */
function examplesOf(file: string): Example[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const marker = "<!-- example: run by test/graphql/persisted-documents-recipes.test.ts (with ";
  const marked =
    /<!-- example: run by test\/graphql\/persisted-documents-recipes\.test\.ts \(with (.+?)\) -->\n```sh\n([\s\S]*?)```\n(?:\n```(?:json|text)\n([\s\S]*?)```)?/g;
  const found = [...text.matchAll(marked)].map((m) => ({ file, settings: m[1], script: m[2], shown: m[3] }));
  // A marker whose block is not a shell block right below it would be skipped silently otherwise.
  expect(found.length, `${file}: every <!-- example --> marker sits right above a sh block`).toBe(
    text.split(marker).length - 1,
  );
  return found;
}

const EXAMPLES = [...examplesOf("docs/persisted-documents.md"), ...examplesOf("README.md")];

beforeAll(async () => {
  mkdirSync(path.dirname(example), { recursive: true });
  cpSync(path.join(ROOT, "examples/typed-client"), example, {
    recursive: true,
    filter: (p) => !p.includes("/src/gql"),
  });
  cpSync(path.join(ROOT, "schema.graphql"), path.join(work, "schema.graphql"));
  symlinkSync(path.join(ROOT, "node_modules"), path.join(example, "node_modules"));
  await run(path.join(BIN, "graphql-codegen"), ["--config", "codegen.ts"], { cwd: example });
}, 120_000);

describe("typed clients: the client preset's recipe (examples/typed-client)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await demoService({ TRUSTED_DOCUMENTS: "enforce", TRUSTED_DOCUMENTS_MANIFEST: manifest });
  });
  afterAll(async () => s?.close());

  it("writes the manifest the service reads: each document's text under sha256:<its SHA-256>", () => {
    const documents = JSON.parse(readFileSync(manifest, "utf8")) as Record<string, string>;
    expect(Object.values(documents).map((text) => text.split("(")[0])).toEqual([
      "mutation SignIn",
      "query RestaurantPage",
    ]);
    for (const [id, text] of Object.entries(documents)) {
      expect(id).toBe(`sha256:${createHash("sha256").update(text).digest("hex")}`);
    }
  });

  it("types the app: tsc accepts it, and refuses a wrong variable or a field the document does not select", async () => {
    await run(path.join(BIN, "tsc"), ["--noEmit", "-p", "."], { cwd: example });
    writeFileSync(
      path.join(example, "src/wrong.ts"),
      [
        `import { RestaurantPage } from "./documents";`,
        `import { execute } from "./execute";`,
        `// @ts-expect-error: first is an Int`,
        `await execute({ url: "" }, RestaurantPage, { first: "three" });`,
        `const page = await execute({ url: "" }, RestaurantPage, { first: 3 });`,
        `// @ts-expect-error: the document does not select the city`,
        `page.restaurants.nodes[0].city;`,
      ].join("\n"),
    );
    try {
      // Each @ts-expect-error must hold: were the types loose (any), tsc would fail on an unused one.
      await run(path.join(BIN, "tsc"), ["--noEmit", "-p", "."], { cwd: example });
    } finally {
      rmSync(path.join(example, "src/wrong.ts"), { force: true });
    }
  });

  it("runs the app against the service enforcing its manifest, on the demo data, as the documentation shows", async () => {
    const { stdout } = await run(path.join(BIN, "tsx"), ["src/main.ts"], {
      cwd: example,
      env: { ...process.env, GRAPHQL_URL: `${s.url}/graphql` },
    });
    const shown = /npx tsx src\/main\.ts\n```\n\n[^`]*```text\n([\s\S]*?)```/.exec(
      readFileSync(path.join(ROOT, "docs/persisted-documents.md"), "utf8"),
    );
    expect(shown, "docs/persisted-documents.md shows the app's output after running it").not.toBeNull();
    expect(stdout).toBe(shown![1]);
  });
});

describe("Relay: relay-compiler's persisted ids, sent by relay-runtime as doc_id", () => {
  const app = path.join(work, "relay-app");
  let s: TestServer;
  let query: ConcreteRequest;

  beforeAll(async () => {
    mkdirSync(path.join(app, "src"), { recursive: true });
    mkdirSync(path.join(app, "__generated__"));
    writeFileSync(path.join(app, "persisted_queries.json"), "{}");
    cpSync(path.join(ROOT, "schema.graphql"), path.join(app, "schema.graphql"));
    writeFileSync(
      path.join(app, "src/app.js"),
      'import { graphql } from "relay-runtime";\nexport const page = graphql`\n  query appRestaurantsQuery($first: Int!) { restaurants(first: $first) { totalCount nodes { id title } } }\n`;\n',
    );
    writeFileSync(
      path.join(app, "relay.config.json"),
      JSON.stringify({
        src: "./src",
        schema: "./schema.graphql",
        language: "javascript",
        artifactDirectory: "./__generated__",
        persistConfig: { file: "./persisted_queries.json", algorithm: "SHA256" },
      }),
    );
    await run(path.join(BIN, "relay-compiler"), ["--noWatchman"], { cwd: app });
    // The artifact is an ES module (export default).
    query = createRequire(import.meta.url)(path.join(app, "__generated__/appRestaurantsQuery.graphql.js")).default;
    s = await demoService({
      TRUSTED_DOCUMENTS: "enforce",
      TRUSTED_DOCUMENTS_MANIFEST: `${manifest},${path.join(app, "persisted_queries.json")}`,
    });
  }, 120_000);
  afterAll(async () => s?.close());

  it("fetches a query the compiler persisted (its text left out of the app) by its id", async () => {
    expect(query.params.text).toBeNull();
    expect(query.params.id).toMatch(/^[0-9a-f]{64}$/);
    const signIn = await s.fetch("/auth/token", {
      method: "POST",
      json: { username: "demo", password: DEFAULT_SEED_PASSWORD },
    });
    const token = (await signIn.json()).access_token as string;
    const sent: unknown[] = [];
    const environment = new Environment({
      network: Network.create(async (params, variables) => {
        const body = { doc_id: params.id, variables };
        sent.push(body);
        const response = await fetch(`${s.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        });
        return response.json();
      }),
      store: new Store(new RecordSource()),
    });
    const data = (await fetchQuery(environment, query, { first: 2 }).toPromise()) as {
      restaurants: { totalCount: number; nodes: { id: string; title: string }[] };
    };
    expect(sent).toEqual([{ doc_id: query.params.id, variables: { first: 2 } }]);
    expect(data.restaurants.totalCount).toBe(40);
    expect(data.restaurants.nodes).toHaveLength(2);
  });
});

describe("the documents' shell examples, on the demo data", () => {
  const groups = [...new Set(EXAMPLES.map((e) => e.settings))];

  it("are found in both documents, each followed by what it prints", () => {
    expect(EXAMPLES.filter((e) => e.file === "docs/persisted-documents.md").length).toBeGreaterThanOrEqual(4);
    expect(EXAMPLES.filter((e) => e.file === "README.md").length).toBeGreaterThanOrEqual(2);
    for (const e of EXAMPLES) expect(e.shown, `${e.file}: the example\n${e.script}\nshows no output`).toBeDefined();
  });

  describe.each(groups)("with %s", (line) => {
    let s: TestServer;
    beforeAll(async () => {
      s = await demoService(settings(line));
    });
    afterAll(async () => s?.close());

    it.each(EXAMPLES.filter((e) => e.settings === line).map((e) => [`${e.file}: ${e.script.split("\n")[0]}`, e]))(
      "%s",
      async (_, e) => {
        const script = e.script.replaceAll("localhost:4000", s.url.replace("http://", ""));
        const { stdout } = await run("bash", ["-euo", "pipefail", "-c", script], { cwd: ROOT });
        expect(stdout, `${e.file}: what the example printed`).toBe(e.shown);
      },
    );
  });
});
