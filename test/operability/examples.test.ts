// Every example the documentation shows runs here, on a freshly seeded demo database (`npm run
// seed`'s data), and must give a non-empty, correct answer: README.md and every docs/**/*.md
// (found anew on each run), the GraphQL IDE's default document, and the request /docs shows for
// each REST operation. On SQLite, and on PostgreSQL when DATABASE_URL points at one.
//
// The convention, for whoever writes documentation: every fenced block tagged `graphql`, and in
// blocks tagged `sh`, `bash`, `shell` or `console` every `curl` command and every variable
// assignment (`TOKEN=$(curl …)`, `RESTAURANT=seed-r-00033`), is an example. Each document runs
// on its own copy of the demo data, its blocks in order, like a reader following it from the
// top: a variable must be set by an earlier line of the same document. Write the service's
// address as `localhost:4000` (or `127.0.0.1:4000`). A curl must answer 2xx, or the status that a
// comment after it names (`curl … # 201`, or `# 404 …` on the next line), with a non-empty answer:
// no `errors`/`error`, no empty `nodes`/`edges` or top-level list, no `totalCount: 0`. GraphQL
// blocks run one operation at a time as the seeded user `demo` (register and login without a
// token), without variables. Other lines (npm, node, admin commands) do not run. A block that
// needs settings starts the service in its first lines (`REST_PREFIXES=/v1,/api npm start`): its
// commands then go to a server started with them, on the same data. A block that cannot run
// (it waits for events, needs another service, changes the machine) gets, on the line above its
// fence, `<!-- example: not run (the reason) -->`; one that a test of its own runs (with other
// settings, another service beside it, its output compared), `<!-- example: run by
// test/x.test.ts (how) -->`, and that file must exist and read the document. The searches README.md shows, with what each
// finds, live in src/contract/examples.ts; so does an example that depends on the clock.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Kind, parse, print, type ObjectValueNode, type OperationDefinitionNode } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EXAMPLE_ACCOUNT,
  IDE_SEARCH,
  keepTokenCommand,
  registerCommand,
  REST_EXAMPLES,
  SEARCH_EXAMPLES,
  type SearchExample,
} from "../../src/contract/examples.ts";
import { EXPLORER_DEFAULT_QUERY } from "../../src/http/pages/explorer.ts";
import { routes } from "../../src/rest/routes/index.ts";
import { DEMO_PASSWORD, seededDemoData, type DemoData } from "../helpers/demo-database.ts";
import {
  blocksOf,
  emptiness,
  graphqlOperations,
  normalGraphql,
  parseJson,
  runShell,
  SHELL,
  shellSteps,
  titlesOf,
  variablesUsed,
  type Block,
  type HttpAnswer,
} from "../helpers/doc-examples.ts";
import { ROOT } from "../helpers/process.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** README.md and every Markdown file under docs/, as paths from the root. */
const DOCUMENTS = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f.split(path.sep).join("/")}`)
    .sort(),
];

const blocksIn = (file: string) => blocksOf(file, readFileSync(path.join(ROOT, file), "utf8"));

const runs = (block: Block) =>
  !block.notRun &&
  !block.runBy &&
  (block.lang === "graphql" || (SHELL.has(block.lang) && shellSteps(block).some((s) => s.kind !== "start")));

let demo: DemoData;
beforeAll(async () => {
  demo = await seededDemoData();
}, 180_000);
afterAll(() => demo?.drop());

const sorted = (titles: string[]) => [...titles].sort();
const nowIso = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");

async function signIn(server: TestServer, username: string, password: string): Promise<string> {
  const r = await server.graphql(
    `mutation($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }`,
    {
      u: username,
      p: password,
    },
  );
  if (!r.data) throw new Error(`signing ${username} in failed: ${JSON.stringify(r.errors)}`);
  return r.data.login.accessToken;
}

/** The example of src/contract/examples.ts a GraphQL operation or a curl command is, if any. */
const graphqlExample = (document: string) =>
  SEARCH_EXAMPLES.find((e) => normalGraphql(e.graphql) === normalGraphql(document));
const restExample = (command: string) =>
  SEARCH_EXAMPLES.find((e) => e.rest && command.includes(`localhost:4000${e.rest}"`));

/** An "open now" example against "open at this instant": the same restaurants (asked twice if a boundary fell between). */
async function sameAsOpenAt(ask: (clock: "now" | string) => Promise<string[]>): Promise<string | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const at = nowIso();
    const [now, then] = [await ask("now"), await ask(at)];
    if (JSON.stringify(sorted(now)) === JSON.stringify(sorted(then))) return undefined;
    if (attempt === 1) return `open now found ${JSON.stringify(now)}, open at ${at} ${JSON.stringify(then)}`;
  }
}

/** The problems of one document's examples, each naming its file and line. */
async function runDocument(file: string): Promise<string[]> {
  const problems: string[] = [];
  const server = await demo.serve();
  const others: TestServer[] = [];
  try {
    const demoToken = await signIn(server, "demo", DEMO_PASSWORD);
    const variables: Record<string, string> = {};
    for (const block of blocksIn(file).filter(runs)) {
      const where = (line: number) => `${file}:${line}`;
      if (block.lang === "graphql") {
        for (const op of graphqlOperations(block)) {
          problems.push(...(await checkGraphql(server, op, demoToken, where(block.line))));
        }
        continue;
      }
      const steps = shellSteps(block);
      const start = steps.find((s) => s.kind === "start");
      let target = server;
      if (start && start.kind === "start") {
        const { PORT: _port, ...settings } = start.settings;
        target = await startServer(settings, { alongside: server });
        others.push(target);
      }
      const known = new Set(Object.keys(variables));
      for (const step of steps) {
        for (const name of variablesUsed(step.kind === "assign" ? step.text.replace(/^[A-Z_0-9]+=/, "") : step.text))
          if (!known.has(name))
            problems.push(`${where(step.line)}: uses $${name}, which no earlier line of ${file} sets`);
        if (step.kind === "assign") known.add(step.name);
      }
      const run = await runShell(steps, target.url, variables);
      for (const { step, answer, exitCode, stderr, value } of run.answers) {
        if (step.kind === "start") continue;
        const at = where(step.line);
        if (exitCode !== 0) {
          problems.push(`${at}: exit code ${exitCode}: ${stderr.trim().slice(0, 300)}`);
          continue;
        }
        if (!answer) {
          problems.push(`${at}: no HTTP answer (${stderr.trim().slice(0, 200)})`);
          continue;
        }
        // An assignment's body went into its variable: that must not be empty.
        problems.push(...checkHttp(answer, step.expect, at, step.kind === "curl"));
        if (step.kind === "assign" && (!value || value === "undefined" || value === "null"))
          problems.push(`${at}: $${step.name} is empty`);
        const example = step.kind === "curl" ? restExample(step.text) : undefined;
        if (example) problems.push(...(await checkRestExample(target, example, answer, variables, at)));
      }
    }
  } finally {
    for (const other of others) await other.close();
    await server.close();
  }
  return problems;
}

function checkHttp(answer: HttpAnswer, expected: number | undefined, at: string, withBody = true): string[] {
  const { status } = answer;
  if (expected !== undefined ? status !== expected : status < 200 || status > 299)
    return [`${at}: answered ${status}${expected ? `, not ${expected}` : ""}: ${answer.body.slice(0, 300)}`];
  if (status === 204 || status >= 400 || !withBody) return [];
  // With curl -i the body starts with the head.
  const body = answer.body.startsWith("HTTP/")
    ? answer.body
        .split(/\r?\n\r?\n/)
        .slice(1)
        .join("\n\n")
    : answer.body;
  if (!body.trim()) return [`${at}: answered ${status} with an empty body`];
  const json = parseJson(body);
  return json === undefined ? [] : emptiness(json).map((p) => `${at}: ${p}`);
}

async function checkGraphql(
  server: TestServer,
  op: { name: string; document: string; node: OperationDefinitionNode },
  demoToken: string,
  at: string,
): Promise<string[]> {
  const label = `${at} (${op.name})`;
  if (op.node.operation === "subscription")
    return [`${label}: a subscription does not answer over POST /graphql; mark the block not run`];
  if (op.node.variableDefinitions?.some((v) => !v.defaultValue))
    return [`${label}: needs variables; write the values into the document`];
  const fields = op.node.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []));
  const token = fields.every((f) => f === "register" || f === "login") ? undefined : demoToken;
  const r = await server.graphql(op.document, undefined, token);
  if (r.status !== 200) return [`${label}: answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`];
  const problems = emptiness(r.body).map((p) => `${label}: ${p}`);
  const example = graphqlExample(op.document);
  if (example && problems.length === 0) {
    if (example.clock) {
      const differs = await sameAsOpenAt(async (clock) =>
        titlesOf(
          (await server.graphql(clock === "now" ? op.document : atInstant(op.document, clock), undefined, token)).body,
        ),
      );
      if (differs) problems.push(`${label}: ${differs}`);
    } else if (JSON.stringify(sorted(titlesOf(r.body))) !== JSON.stringify(sorted(example.finds)))
      problems.push(
        `${label}: found ${JSON.stringify(titlesOf(r.body))}, the demo data has ${JSON.stringify(example.finds)}`,
      );
  }
  return problems;
}

async function checkRestExample(
  server: TestServer,
  example: SearchExample,
  answer: HttpAnswer,
  variables: Record<string, string>,
  at: string,
): Promise<string[]> {
  const found = titlesOf(parseJson(answer.body));
  if (!example.clock)
    return JSON.stringify(sorted(found)) === JSON.stringify(sorted(example.finds))
      ? []
      : [`${at}: found ${JSON.stringify(found)}, the demo data has ${JSON.stringify(example.finds)}`];
  const ask = async (clock: string) => {
    const url = clock === "now" ? example.rest! : example.rest!.replace("open_now=true", `open_at=${clock}`);
    return titlesOf(await (await server.fetch(url, { token: variables.TOKEN })).json());
  };
  const differs = await sameAsOpenAt(ask);
  return differs ? [`${at}: ${differs}`] : [];
}

/** An "open now" document asking at a given instant instead. */
const atInstant = (document: string, iso: string) =>
  print(parse(document)).replace("openNow: true", `openAt: "${iso}"`);

describe("the documentation's examples, each document on its own copy of the demo data", () => {
  const withExamples = DOCUMENTS.filter((file) => blocksIn(file).some(runs));

  it("finds the documents and their examples (README.md's among them)", () => {
    expect(withExamples).toContain("README.md");
    expect(withExamples).toContain("docs/rest-contract.md");
  });

  it.each(withExamples)(
    "%s: every example answers, non-empty and correct",
    async (file) => {
      expect(await runDocument(file)).toEqual([]);
    },
    300_000,
  );
});

describe("the GraphQL IDE's default document", () => {
  it("registers, signs in, and with that token searches what src/contract/examples.ts says it finds", async () => {
    const server = await demo.serve();
    try {
      const ops = graphqlOperations({ file: "IDE", line: 1, lang: "graphql", text: EXPLORER_DEFAULT_QUERY });
      expect(ops.map((o) => o.name)).toEqual(["Register", "Login", "SearchRestaurants"]);
      const [register, login, search] = ops.map((o) => o.document);
      const registered = await server.graphql(register!);
      expect(emptiness(registered.body)).toEqual([]);
      // The README registers the same account: then the IDE's Register says so and its Login works.
      expect((await server.graphql(register!)).errors?.[0]?.extensions?.code).toBe("CONFLICT");
      const signedIn = await server.graphql(login!);
      expect(emptiness(signedIn.body)).toEqual([]);
      const found = await server.graphql(search!, undefined, signedIn.data.login.accessToken);
      expect(emptiness(found.body)).toEqual([]);
      expect(titlesOf(found.body)).toEqual(IDE_SEARCH.finds);
    } finally {
      await server.close();
    }
  });
});

describe("the request /docs shows for each REST operation", () => {
  it("names only fields its route reads, and answers the route's status with a non-empty answer", async () => {
    const server = await demo.serve();
    try {
      const problems: string[] = [];
      for (const row of routes) {
        const example = REST_EXAMPLES[row.operation];
        if (!example) {
          problems.push(`${row.operation}: no example in src/contract/examples.ts`);
          continue;
        }
        const names = new Set(row.params.flatMap((p) => [p.name, ...(p.aliases ?? [])]));
        for (const name of [example.path, example.query, example.body].flatMap((part) => Object.keys(part ?? {})))
          if (!names.has(name))
            problems.push(`${row.operation}: its example sends ${name}, which the route does not read`);
        const query = new URLSearchParams(
          Object.entries(example.query ?? {}).flatMap(([k, v]) =>
            (Array.isArray(v) ? v : [v]).map((x) => [k, String(x)]),
          ),
        );
        const publicRow = row.tag === "accounts" && row.method === "POST";
        // Sign-outs revoke the token they carry: each request signs the demo user in afresh.
        const token = publicRow ? undefined : await signIn(server, "demo", DEMO_PASSWORD);
        const url = row.path.replace(/:(\w+)/g, (_, name: string) => example.path?.[name] ?? `:${name}`);
        const res = await server.fetch(`${url}${query.size ? `?${query}` : ""}`, {
          method: row.method,
          token,
          ...(example.body ? { json: example.body } : {}),
        });
        const text = await res.text();
        if (res.status !== row.status)
          problems.push(`${row.operation}: answered ${res.status}, not ${row.status}: ${text}`);
        else if (row.status !== 204) problems.push(...emptiness(parseJson(text)).map((p) => `${row.operation}: ${p}`));
      }
      expect(problems).toEqual([]);
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe("examples that depend on the clock", () => {
  // Opening hours are whole or half hours in zones offset by whole or half hours, so the half
  // hours are every state there is; a week apart, every combination of the zones' daylight saving.
  it("the demo data has a restaurant open at every half hour of a year for each 'open now' example", async () => {
    const server = await demo.serve();
    try {
      const token = await signIn(server, "demo", DEMO_PASSWORD);
      const closed: string[] = [];
      for (const example of SEARCH_EXAMPLES.filter((e) => e.clock)) {
        const field = (parse(example.graphql).definitions[0] as OperationDefinitionNode).selectionSet.selections[0]!;
        if (field.kind !== Kind.FIELD) throw new Error("an open-now example selects a search field first");
        const filter = field.arguments!.find((a) => a.name.value === "filter")!.value as ObjectValueNode;
        for (let day = 0; day < 371; day += 7) {
          const midnight = Date.UTC(2027, 0, 1) + day * 86_400_000;
          for (const half of [0, 24]) {
            const instants = Array.from({ length: 24 }, (_, i) =>
              new Date(midnight + (half + i) * 1_800_000).toISOString(),
            );
            const aliases = instants.map(
              (iso, i) =>
                `t${i}: ${field.name.value}(filter: ${print(filter).replace("openNow: true", `openAt: "${iso}"`)}) { totalCount }`,
            );
            const r = await server.graphql(`{ ${aliases.join("\n")} }`, undefined, token);
            expect(r.errors).toBeUndefined();
            instants.forEach((iso, i) => r.data[`t${i}`].totalCount === 0 && closed.push(`${example.rest}: ${iso}`));
          }
        }
      }
      expect(closed).toEqual([]);
    } finally {
      await server.close();
    }
  }, 300_000);
});

describe("one source for the examples", () => {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");

  it("README.md shows the searches and the account of src/contract/examples.ts, the IDE the same account", () => {
    for (const example of SEARCH_EXAMPLES) {
      expect(readme).toContain(example.graphql);
      if (example.rest) expect(readme).toContain(`"localhost:4000${example.rest}"`);
    }
    expect(readme).toContain(registerCommand("localhost:4000"));
    expect(readme).toContain(keepTokenCommand("localhost:4000"));
    expect(EXPLORER_DEFAULT_QUERY).toContain(
      `register(input: { username: "${EXAMPLE_ACCOUNT.username}", password: "${EXAMPLE_ACCOUNT.password}"`,
    );
    expect(EXPLORER_DEFAULT_QUERY).toContain(IDE_SEARCH.document);
  });

  it("every document's markers read <!-- example: not run (why) --> or run by (a test) and sit above a block", () => {
    for (const file of DOCUMENTS) {
      const text = readFileSync(path.join(ROOT, file), "utf8");
      const markers = text.split("\n").filter((l) => l.trim().startsWith("<!-- example")).length;
      const marked = blocksIn(file).filter((b) => b.notRun || b.runBy);
      expect(marked.length, `${file}: a marker not followed by a block`).toBe(markers);
    }
  });

  it("a block marked run by a test names a test file that reads its document", () => {
    const claims = DOCUMENTS.flatMap((file) => blocksIn(file).filter((b) => b.runBy));
    expect(claims.length).toBeGreaterThan(0);
    for (const block of claims) {
      const test = path.join(ROOT, block.runBy!);
      const where = `${block.file}:${block.line} names ${block.runBy}`;
      expect(existsSync(test), `${where}, which does not exist`).toBe(true);
      expect(readFileSync(test, "utf8"), `${where}, which does not read ${block.file}`).toContain(block.file);
    }
  });

  it("the checks bite: an example that finds nothing, or uses a $TOKEN nobody set, is reported", async () => {
    const server = await demo.serve();
    try {
      const token = await signIn(server, "demo", DEMO_PASSWORD);
      const [empty] = graphqlOperations({
        file: "x.md",
        line: 1,
        lang: "graphql",
        text: `{ restaurants(filter: { search: "creme brulee" }) { nodes { title } } }`, // not in the demo data
      });
      expect(await checkGraphql(server, empty!, token, "x.md:1")).toEqual([
        "x.md:1 (operation 1): answer.data.restaurants.nodes is empty",
      ]);
      const unset = shellSteps({
        file: "x.md",
        line: 1,
        lang: "sh",
        text: `curl -s localhost:4000/graphql -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"query":"{ me { id } }"}'`,
      });
      expect(variablesUsed(unset[0]!.text)).toEqual(["TOKEN"]);
      const [run] = (await runShell(unset, server.url, {})).answers;
      expect(checkHttp(run!.answer!, undefined, "x.md:2")).toEqual([
        expect.stringMatching(/^x\.md:2: errors: .*"UNAUTHENTICATED"/),
        "x.md:2: data is null",
      ]);
    } finally {
      await server.close();
    }
  });
});
