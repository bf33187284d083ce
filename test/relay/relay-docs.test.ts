// docs/relay.md and the README's "Relay" subsection run as written, on the demo data (`npm run
// seed`): the curl lines (their answer is the one printed under them), each GraphQL operation
// (with the answers the text describes), and the Relay app: its relay.config.json and documents
// compiled by relay-compiler as a reader would, then run through the network layer shown.
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.ts";
import { seededServer } from "./seeded-server.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const relay = createRequire(import.meta.url)("relay-runtime");
const doc = readFileSync(path.join(ROOT, "docs/relay.md"), "utf8");
const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");

/** The fenced blocks of a Markdown text in `language`, in order. */
const blocks = (text: string, language: string) =>
  [...text.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]!);

const operations = blocks(doc, "graphql").filter((b) => /^(query|mutation|\{)/.test(b.trim()));
const operationNamed = (name: string) => operations.find((b) => b.startsWith(`query ${name} `))!;
const relayDocuments = blocks(doc, "graphql").filter((b) => /^fragment |^query RestaurantScreen/.test(b));

let s: TestServer;
let token: string;
beforeAll(async () => {
  ({ s, token } = await seededServer());
});
afterAll(async () => s?.close());

async function run(query: string) {
  const r = await s.graphql(query, {}, token);
  expect(r.errors, `${query}\n${JSON.stringify(r.errors)}`).toBeUndefined();
  return r.data;
}

const nodeIds = (connection: { edges: { node: { id: string } }[] }) => connection.edges.map((e) => e.node.id);

describe("docs/relay.md on the demo data", () => {
  it("shows the operations it describes, each running without an error", () => {
    expect(operations.map((b) => /^query (\w+)/.exec(b)?.[1])).toEqual([
      "LastComments",
      "CommentsBefore",
      "SeveralNodes",
      "RestaurantScreenQuery",
    ]);
  });

  it("runs its curl lines, answering what it prints under them", async () => {
    const [script] = blocks(doc, "sh");
    const expected = /^# (\{.*\})$/m.exec(script!)![1]!;
    const host = new URL(s.url).host;
    // Not execFileSync: the server answering curl runs in this very process.
    const { stdout } = await promisify(execFile)("bash", [
      "-euo",
      "pipefail",
      "-c",
      script!.replaceAll("localhost:4000", host),
    ]);
    expect(JSON.parse(stdout)).toEqual(JSON.parse(expected));
  });

  it("pages a restaurant's comments backwards as the text says", async () => {
    const last = (await run(operationNamed("LastComments"))).restaurant.comments;
    expect(nodeIds(last)).toEqual(["seed-c-00001-03", "seed-c-00001-02", "seed-c-00001-01"]);
    expect(last.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false, startCursor: "bzo4" });
    const before = (await run(operationNamed("CommentsBefore"))).restaurant.comments;
    expect(nodeIds(before)).toEqual(["seed-c-00001-06", "seed-c-00001-05", "seed-c-00001-04"]);
    expect(before.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    expect(doc).toMatch(/`-06`, `-05`, `-04`/);
  });

  it("answers several nodes, null for someone else's order", async () => {
    const { nodes } = await run(operationNamed("SeveralNodes"));
    expect(nodes.map((n: { __typename: string } | null) => n?.__typename ?? null)).toEqual([
      "Restaurant",
      "Comment",
      "User",
      "Order",
      null,
    ]);
    expect(await s.db.prisma.order.findUnique({ where: { id: "seed-o-00006-1" } })).toMatchObject({
      userId: "seed-u-0018",
    });
  });

  it("shows the documents of the Relay app the test suite runs (test/relay/app)", () => {
    const app = readFileSync(path.join(ROOT, "test/relay/app/RestaurantScreen.ts"), "utf8");
    const flat = (text: string) => text.replace(/\s+/g, " ").trim();
    expect(relayDocuments).toHaveLength(3);
    for (const document of relayDocuments) expect(flat(app)).toContain(flat(document));
  });

  it("compiles the app with the config shown and runs it through the network layer shown", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "relay-docs-"));
    try {
      // The reader's project: the config as shown, the schema, the documents in a source file.
      writeFileSync(path.join(dir, "relay.config.json"), blocks(doc, "json")[0]!);
      writeFileSync(path.join(dir, "schema.graphql"), readFileSync(path.join(ROOT, "schema.graphql")));
      mkdirSync(path.join(dir, "src/__generated__"), { recursive: true });
      writeFileSync(
        path.join(dir, "src/RestaurantScreen.ts"),
        relayDocuments.map((d, i) => `export const d${i} = graphql\`\n${d}\`;\n`).join("\n"),
      );
      execFileSync(path.join(ROOT, "node_modules/.bin/relay-compiler"), ["--output", "quiet-with-errors"], {
        cwd: dir,
        stdio: "pipe",
      });
      const generated = path.join(dir, "src/__generated__");
      expect(readdirSync(generated).sort()).toContain("RestaurantScreenRefetchQuery.graphql.ts");
      const query = (await import(pathToFileURL(path.join(generated, "RestaurantScreenQuery.graphql.ts")).href))
        .default;
      // The network layer as shown (plain JavaScript once its URL points at this server).
      const [snippet] = blocks(doc, "ts");
      const network = new Function(
        "Network",
        "token",
        `${snippet!.replace("http://localhost:4000", s.url)}; return network;`,
      )(relay.Network, token);
      const env = new relay.Environment({ network, store: new relay.Store(new relay.RecordSource()) });
      const data = await relay.fetchQuery(env, query, { id: "seed-r-00001", last: 4 }).toPromise();
      const fragment = (await import(pathToFileURL(path.join(generated, "RestaurantScreen_comments.graphql.ts")).href))
        .default;
      const comments = env.lookup(relay.getSelector(fragment, data.restaurant)).data.comments;
      expect(nodeIds(comments)).toEqual(["seed-c-00001-04", "seed-c-00001-03", "seed-c-00001-02", "seed-c-00001-01"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("README's Relay subsection on the demo data", () => {
  it("runs its example: the oldest comments and the cursor to page back from", async () => {
    const section = readme.slice(readme.indexOf("### Relay"));
    const [example] = blocks(section, "graphql");
    const comments = (await run(example!)).restaurant.comments;
    expect(nodeIds(comments)).toEqual(["seed-c-00001-03", "seed-c-00001-02", "seed-c-00001-01"]);
    expect(comments.pageInfo).toEqual({ hasPreviousPage: true, startCursor: "bzo4" });
  });
});
