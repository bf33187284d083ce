// The bad-input corpus for GraphQL: every Mutation field of the schema (iterated, so a new
// mutation is covered once it has a valid call in mutation-calls.ts), spoiled one argument or
// input field at a time (wrong types, huge and non-finite numbers, missing and unknown fields,
// oversized and unstorable strings, hostile ids) and sent in broken envelopes (malformed JSON,
// wrong content types, bad multipart). Every answer must be an error with a code other than
// INTERNAL_SERVER_ERROR and a message that helps, nothing may change in the database, and the
// server must still be ready at the end.
import {
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
} from "graphql";
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { isStored } from "../helpers/upload-store.ts";
import {
  HUGE,
  INJECTIONS,
  jsonText,
  MB,
  multipartText,
  raw,
  send,
  Tally,
  TRAVERSALS,
  TRICKY_UNICODE,
  tryInput,
  TWO_TO_64,
  UNSTORABLE,
  type Expectation,
} from "./corpus.ts";
import {
  freshToken,
  mutationDocument,
  mutationFields,
  MUTATIONS,
  schema,
  signUpWorld,
  type World,
} from "./mutation-calls.ts";
import { PNG } from "../rest/legacy.ts";

let s: TestServer;
let w: World;
const tally = new Tally("GraphQL mutations");

beforeAll(async () => {
  s = await startServer();
  w = await signUpWorld(s);
});
afterAll(async () => {
  console.log(tally.summary());
  await s?.close();
});

type Variant = {
  label: string;
  variables: Record<string, unknown>;
  expect?: Expectation;
  sent?: string[];
  mentions?: string[];
};

const clone = <T>(v: T): T => structuredClone(v);
const DELETE = Symbol("delete");

/** A copy of `base` with the value at `path` replaced (or removed), creating objects on the way. */
function withValue(base: Record<string, unknown>, path: (string | number)[], value: unknown): Record<string, unknown> {
  const copy = clone(base);
  let node: any = copy;
  for (const key of path.slice(0, -1)) {
    if (node[key] === null || typeof node[key] !== "object") node[key] = typeof key === "number" ? [] : {};
    node = node[key];
  }
  const last = path[path.length - 1];
  if (value === DELETE) delete node[last];
  // An own "__proto__" key (as JSON.parse would make one), not the object's prototype.
  else Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** A valid value of a type, for a parent that must exist to spoil one of its fields. */
function sample(type: GraphQLInputType): unknown {
  const t = getNullableType(type);
  if (isListType(t)) return [sample(t.ofType)];
  if (isEnumType(t)) return t.getValues()[0].value;
  if (isInputObjectType(t)) {
    const fields = Object.values(t.getFields()).filter((f) => isNonNullType(f.type) && f.defaultValue === undefined);
    return Object.fromEntries(fields.map((f) => [f.name, sample(f.type)]));
  }
  switch (t.name) {
    case "Int":
    case "Float":
      return 1;
    case "Boolean":
      return true;
    case "Time":
      return "08:00";
    default:
      return "sample";
  }
}

const at = (path: (string | number)[]) =>
  path
    .map((p) => (typeof p === "number" ? `[${p}]` : `.${p}`))
    .join("")
    .slice(1);

/** The spoiled values for one scalar (or enum) position, by type. */
type ScalarVariant = { label: string; value: unknown; expect?: Expectation; sent?: string[]; named?: boolean };

function scalarVariants(typeName: string, isId: boolean): ScalarVariant[] {
  const strings: ScalarVariant[] = [
    { label: "an object for a string", value: { a: 1 } },
    { label: "an array for a string", value: ["a", "b"] },
    { label: "a boolean for a string", value: true },
    // Refused naming the field (BAD_USER_INPUT), never stored mangled.
    { label: "a NUL byte", value: UNSTORABLE.nul, named: true },
    { label: "a lone high surrogate", value: UNSTORABLE.loneHigh, named: true },
    { label: "a lone low surrogate", value: UNSTORABLE.loneLow, named: true },
    { label: "a 1 MB string", value: "x".repeat(MB) },
  ];
  switch (typeName) {
    case "String":
      return [
        ...strings,
        { label: "a number for a string", value: 12345 },
        // Under the body limit, over every text field's own limit (ids have none: they are looked up).
        { label: "a 300 KB string", value: "y".repeat(300 * 1024), expect: isId ? "refusedOrNoop" : "refused" },
      ];
    case "ID":
      return [
        ...strings,
        { label: "a fractional number for an id", value: 1.5 },
        { label: "a 300 KB id", value: "y".repeat(300 * 1024), expect: "refusedOrNoop" },
        ...[...INJECTIONS, ...TRAVERSALS, ...TRICKY_UNICODE].map((v) => ({
          label: `the id ${JSON.stringify(v)}`,
          value: v,
          expect: "refusedOrNoop" as const,
          sent: [v],
        })),
      ];
    case "Time":
      return [
        ...strings,
        { label: "25:00", value: "25:00" },
        { label: "8am", value: "8am" },
        { label: "a number for a time", value: 800 },
      ];
    case "Int":
      return [
        { label: "a string for a number", value: "1" },
        { label: "a fraction", value: 1.5 },
        { label: "1e309", value: HUGE },
        { label: "2^64", value: TWO_TO_64 },
        { label: "2^31 (over Int)", value: 2 ** 31 },
        { label: "-1", value: -1 },
        { label: "NaN as a string", value: "NaN" },
        { label: "an array for a number", value: [1, 2] },
      ];
    case "Float":
      return [
        { label: "a string for a number", value: "4.5" },
        { label: "1e309", value: HUGE },
        { label: "-1e309", value: raw("-1e309") },
        { label: "2^64", value: TWO_TO_64 },
        { label: "-1e6", value: -1e6 },
        { label: "NaN as a string", value: "NaN" },
        { label: "an object for a number", value: {} },
      ];
    case "Boolean":
      return [
        { label: "a string for a boolean", value: "true" },
        { label: "a number for a boolean", value: 1 },
        { label: "an object for a boolean", value: {} },
      ];
    case "Upload":
      return [
        { label: "a string for a file", value: "../../etc/passwd" },
        { label: "an object for a file", value: { filename: "x.png" } },
      ];
    default:
      return [
        { label: "an unknown enum value", value: "NOT_A_VALUE" },
        { label: "a number for an enum", value: 1 },
      ];
  }
}

/** Every way to spoil the value at `path` (of `type`), and the fields below it. */
function variantsAt(
  base: Record<string, unknown>,
  path: (string | number)[],
  type: GraphQLInputType,
  hasDefault: boolean,
): Variant[] {
  const where = at(path);
  const leaf = String(path.filter((p) => typeof p === "string").at(-1));
  const variants: Variant[] = [];
  if (isNonNullType(type) && !hasDefault) {
    variants.push({ label: `${where}: missing`, variables: withValue(base, path, DELETE), mentions: [leaf] });
    variants.push({ label: `${where}: null`, variables: withValue(base, path, null), mentions: [leaf] });
  }
  const t = getNullableType(type);
  if (isListType(t)) {
    variants.push({ label: `${where}: an object for a list`, variables: withValue(base, path, { not: "a list" }) });
    if (isNonNullType(t.ofType))
      variants.push({ label: `${where}: a null item`, variables: withValue(base, path, [null]) });
    variants.push({ label: `${where}: a list of lists`, variables: withValue(base, path, [["nested"]]) });
    const inner = getNullableType(t.ofType);
    if (isScalarType(inner) && (inner.name === "String" || inner.name === "ID")) {
      variants.push({
        label: `${where}: 51 items`,
        variables: withValue(
          base,
          path,
          Array.from({ length: 51 }, (_, i) => `item ${i}`),
        ),
      });
    }
    const current = path.reduce<any>((node, key) => node?.[key], base);
    const element = Array.isArray(current) && current.length ? current : [sample(t.ofType)];
    return [...variants, ...variantsAt(withValue(base, path, element), [...path, 0], t.ofType, false)];
  }
  if (isInputObjectType(t)) {
    const current = path.reduce<any>((node, key) => node?.[key], base);
    const present = current && typeof current === "object" ? current : sample(t);
    const filled = withValue(base, path, present);
    variants.push({ label: `${where}: a string for an object`, variables: withValue(base, path, "not an object") });
    variants.push({ label: `${where}: an array for an object`, variables: withValue(base, path, [present]) });
    variants.push({
      label: `${where}: an unknown field`,
      variables: withValue(filled, [...path, "bogusField"], "x"),
      mentions: ["bogusField"],
    });
    variants.push({
      label: `${where}: a __proto__ field`,
      variables: withValue(filled, [...path, "__proto__"], { polluted: true }),
    });
    for (const f of Object.values(t.getFields()))
      variants.push(...variantsAt(filled, [...path, f.name], f.type, f.defaultValue !== undefined));
    return variants;
  }
  const isId = isScalarType(t) && t.name === "ID";
  for (const v of scalarVariants(isScalarType(t) || isEnumType(t) ? t.name : "?", isId)) {
    const sent = v.sent ?? (typeof v.value === "string" ? [v.value] : []);
    const mentions = v.named ? [leaf] : undefined;
    variants.push({
      label: `${where}: ${v.label}`,
      variables: withValue(base, path, v.value),
      expect: v.expect,
      sent,
      mentions,
    });
  }
  return variants;
}

function argumentVariants(field: GraphQLField<unknown, unknown>, base: Record<string, unknown>): Variant[] {
  return field.args.flatMap((arg) => variantsAt(base, [arg.name], arg.type, arg.defaultValue !== undefined));
}

/** Dotted paths of the Upload values among arguments (e.g. "input.cover"). */
function uploadPaths(args: readonly { name: string; type: GraphQLInputType }[], prefix = ""): string[] {
  return args.flatMap((arg) => {
    const t = getNullableType(arg.type);
    if (isScalarType(t) && t.name === "Upload") return [prefix + arg.name];
    if (isInputObjectType(t)) return uploadPaths(Object.values(t.getFields()), `${prefix}${arg.name}.`);
    return [];
  });
}

/** The mutation called with one more argument, which the schema does not have. */
function withUnknownArgument(query: string, name: string): string {
  return query.includes(`${name}(`)
    ? query.replace(`${name}(`, `${name}(bogusArgument: 1, `)
    : query.replace(` ${name}`, ` ${name}(bogusArgument: 1)`);
}

/** Requests that break the envelope rather than a value. */
function envelopeVariants(field: GraphQLField<unknown, unknown>, query: string, variables: Record<string, unknown>) {
  const name = field.name;
  const body = jsonText({ query, variables });
  const boundary = "corpusboundary";
  const operations = JSON.stringify({ query, variables });
  const multipart = (parts: Parameters<typeof multipartText>[1]) => multipartText(boundary, parts);
  const preflight = { "apollo-require-preflight": "true" };
  return [
    {
      label: "malformed JSON (cut in half)",
      headers: { "content-type": "application/json" },
      body: body.slice(0, Math.floor(body.length / 2)),
    },
    {
      label: "JSON with a trailing comma",
      headers: { "content-type": "application/json" },
      body: body.replace(/}$/, ",}"),
    },
    { label: "a JSON array of nothing", headers: { "content-type": "application/json" }, body: "[]" },
    { label: "JSON null", headers: { "content-type": "application/json" }, body: "null" },
    {
      label: "variables as an array",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query, variables: [variables] }),
    },
    {
      label: "query as a number",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: 42, variables }),
    },
    {
      label: "invalid UTF-8 bytes in a string",
      headers: { "content-type": "application/json" },
      body: Buffer.concat([
        Buffer.from(body.slice(0, -1) + ',"extensions":{"x":"'),
        Buffer.from([0xff, 0xfe, 0xc3]),
        Buffer.from('"}}'),
      ]),
    },
    {
      label: "an unknown argument",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: withUnknownArgument(query, name), variables }),
    },
    { label: "text/plain", headers: { "content-type": "text/plain" }, body },
    { label: "application/xml", headers: { "content-type": "application/xml" }, body: `<mutation>${query}</mutation>` },
    { label: "JSON labelled as a form", headers: { "content-type": "application/x-www-form-urlencoded" }, body },
    { label: "no content type", headers: {}, body: Buffer.from(body) },
    {
      label: "multipart without a boundary",
      headers: { "content-type": "multipart/form-data", ...preflight },
      body: multipart([{ name: "operations", value: operations }]),
    },
    {
      label: "multipart cut short in the map",
      headers: { "content-type": `multipart/form-data; boundary=${boundary}`, ...preflight },
      body: multipart([
        { name: "operations", value: operations },
        { name: "map", value: "{}" },
      ]).slice(0, -40),
    },
    // Files are streamed to the resolvers (the multipart spec): a file cut short matters where the
    // operation reads it, so it is cut in each file argument the mutation has.
    ...uploadPaths(field.args).map((path) => ({
      label: `multipart cut short in the file ${path}`,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}`, ...preflight },
      body: multipart([
        { name: "operations", value: operations },
        { name: "map", value: JSON.stringify({ 1: [`variables.${path}`] }) },
        { name: "1", value: "\x89PNG\r\n\x1a\n" + "z".repeat(2000), filename: "../../etc/passwd", type: "image/png" },
      ]).slice(0, -200),
    })),
    {
      label: "multipart with malformed operations",
      headers: { "content-type": `multipart/form-data; boundary=${boundary}`, ...preflight },
      body: multipart([
        { name: "operations", value: operations.slice(0, 20) },
        { name: "map", value: "{}" },
      ]),
    },
  ];
}

describe("bad input on every GraphQL mutation", () => {
  it("has a valid call for every mutation of the schema", () => {
    expect(
      mutationFields()
        .map((f) => f.name)
        .filter((name) => !MUTATIONS[name]),
    ).toEqual([]);
  });

  it.each(mutationFields().map((f) => [f.name, f] as const))(
    "%s refuses every spoiled call, changing nothing",
    async (name, field) => {
      const before = tally.problems.length;
      const { variables } = await MUTATIONS[name].call(w);
      const query = mutationDocument(field);
      const token = await freshToken(w, w.owner.id);
      const post = (
        body: string | Buffer,
        headers: Record<string, string | undefined> = { "content-type": "application/json" },
      ) => send(s, "/graphql", { method: "POST", token, headers, body });

      for (const v of argumentVariants(field, variables)) {
        await tryInput(s, tally, `${name} ${v.label}`, () => post(jsonText({ query, variables: v.variables })), {
          expect: v.expect,
          sent: v.sent,
          mentions: v.mentions,
        });
      }
      for (const v of envelopeVariants(field, query, variables)) {
        await tryInput(s, tally, `${name} ${v.label}`, () => post(v.body, v.headers));
      }
      expect(Object.prototype).not.toHaveProperty("polluted");
      expect(tally.problems.slice(before)).toEqual([]);
    },
  );

  it("stores a real image sent with a traversal file name under a random name, inside the upload folder", async () => {
    const field = schema.getMutationType()!.getFields().createGrocery;
    const outside = () => readdirSync(path.dirname(s.config.uploadDir)).sort();
    const outsideBefore = outside();
    for (const filename of [...TRAVERSALS, "/etc/passwd", ".htaccess", "evil\u202Egnp.exe"]) {
      const form = new FormData();
      form.append(
        "operations",
        JSON.stringify({
          query: mutationDocument(field).replace("{ __typename }", "{ cover }"),
          variables: { input: { title: "Named badly", cover: null } },
        }),
      );
      form.append("map", JSON.stringify({ 0: ["variables.input.cover"] }));
      form.append("0", new Blob([PNG as Uint8Array<ArrayBuffer>], { type: "image/png" }), filename);
      tally.inputs++;
      const res = await s.fetch("/graphql", {
        method: "POST",
        token: w.owner.token,
        headers: { "apollo-require-preflight": "true" },
        body: form,
      });
      const body = (await res.json()) as any;
      expect(body.errors, filename).toBeUndefined();
      expect(body.data.createGrocery.cover, filename).toMatch(/^[0-9a-f]{32}\.png$/);
      expect(await isStored(s.store, body.data.createGrocery.cover)).toBe(true);
    }
    expect(outside()).toEqual(outsideBefore);
  });

  it("is still ready after the whole run, with no 5xx seen", async () => {
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    expect(tally.inputs).toBeGreaterThan(500);
    expect(tally.serverErrors).toBe(0);
  });
});
