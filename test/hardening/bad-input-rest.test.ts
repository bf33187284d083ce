// The bad-input corpus for the REST shim: every row of the route table (iterated, so a new route
// is covered without touching this file), sent a valid request spoiled one field at a time (wrong
// types, huge and non-finite numbers, missing fields, oversized and unstorable strings, hostile
// ids in the path and the body) and broken envelopes (malformed JSON, wrong content types, bad
// multipart, a file where text is expected, a traversal file name). Every answer must be a 4xx
// in the {"error": {code, message}} shape with a message that helps; nothing may change in the
// database; the server must still be ready at the end. Unknown fields are the one thing the shim
// tolerates on purpose (legacy clients send extra fields: jQuery's `_` cache-buster, fields they
// read echoed back into an edit): they are checked to be ignored, not stored, and harmless.
import { readdirSync } from "node:fs";
import path from "node:path";
import { parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSchema } from "../../src/graphql/schema.ts";
import { editFields, editVariables } from "../../src/rest/requests/empty-edit.ts";
import {
  boolean,
  decimal,
  file,
  integer,
  openingHours,
  text,
  textList,
  address,
  contact,
} from "../../src/rest/requests/fields.ts";
import type { RestParam, RestRequest, RestRoute } from "../../src/rest/route-row.ts";
import { routes } from "../../src/rest/routes/index.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { uploadFilesOf } from "../helpers/upload-store.ts";
import { PNG } from "../rest/legacy.ts";
import {
  HUGE,
  INJECTIONS,
  Raw,
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
  type Answer,
  type Expectation,
} from "./corpus.ts";
import { freshToken, newGrocery, newRestaurant, PASSWORD, signUpWorld, type World } from "./mutation-calls.ts";

let s: TestServer;
let w: World;
const tally = new Tally("REST routes");

beforeAll(async () => {
  s = await startServer();
  w = await signUpWorld(s);
});
afterAll(async () => {
  console.log(tally.summary());
  await s?.close();
});

/** The contract alone: which rows are edits. */
const contract = buildSchema();

const routeName = (r: RestRoute) => `${r.method} ${r.path} (${r.operation})`;
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** A valid value of a field kind. */
function sampleOf(param: RestParam): unknown {
  switch (param.kind) {
    case integer:
    case decimal:
      return 1;
    case boolean:
      return true;
    case textList:
      return ["sample_value"];
    case openingHours:
      return [{ open: "08:00", close: "12:00" }];
    case address:
      return { city: "Lyon" };
    case contact:
      return { email: "a@example.com" };
    default:
      if (param.kind === text) return "sample_value"; // a valid username, password and title alike
      const documented = (param.kind.schema as { enum?: string[] }).enum;
      return documented?.[0] ?? "sample_value";
  }
}

type Fixtures = { restaurantId: string; groceryId: string };

/** Ids go where the field names say: restaurant_id, grocery_id, or the `_id` of a grocery row. */
function idFor(name: string, route: RestRoute, f: Fixtures): string | undefined {
  if (name === "restaurant_id") return f.restaurantId;
  if (name === "grocery_id" || ((name === "_id" || name === "id") && route.tag === "groceries")) return f.groceryId;
  return undefined;
}

/** What the row's `when` sees of a request with these fields. */
function fakeRequest(params: Record<string, string>, fields: Record<string, unknown>): RestRequest {
  return {
    params,
    query: {},
    body: fields,
    has: (name) => Object.hasOwn(fields, name),
    field: (name) => fields[name],
  };
}

type Request = { path: string; params: Record<string, string>; fields: Record<string, unknown> };

/**
 * The valid request of a row, made from its own field declarations: path ids, required fields
 * with valid values, and (for rows sharing a path) a field that makes the row's `when` pick it.
 */
function validRequest(route: RestRoute, f: Fixtures): Request {
  const params: Record<string, string> = {};
  const fields: Record<string, unknown> = {};
  for (const p of route.params) {
    if (p.in === "path") params[p.name] = idFor(p.name, route, f) ?? "sample";
    else if (p.required) fields[p.name] = idFor(p.name, route, f) ?? sampleOf(p);
  }
  if (route.when && !route.when(fakeRequest(params, fields))) {
    const picker = route.params.find(
      (p) => p.in !== "path" && route.when!(fakeRequest(params, { ...fields, [p.name]: sampleOf(p) })),
    );
    if (!picker) throw new Error(`${routeName(route)}: no field makes its \`when\` accept the request`);
    fields[picker.name] = sampleOf(picker);
  }
  // An edit needs one of its fields (src/rest/requests/empty-edit.ts): its first, with a valid value.
  const edits = editFields(route);
  if (editVariables(contract, parse(route.document)).length && !edits.some((name) => Object.hasOwn(fields, name))) {
    fields[edits[0]] = sampleOf(route.params.find((p) => p.name === edits[0])!);
  }
  if ((route.aliasOf ?? route.operation) === "Sign in")
    Object.assign(fields, { username: w.owner.username, password: PASSWORD });
  return { path: route.path.replace(/:(\w+)/g, (_m, name) => encodeURIComponent(params[name])), params, fields };
}

/** Sends fields as the route reads them: JSON body for body methods (query-declared ones in the query), else the query. */
function sendFields(
  route: RestRoute,
  request: Request,
  fields: Record<string, unknown>,
  token?: string,
): Promise<Answer> {
  const queryNames = new Set(route.params.filter((p) => p.in === "query").map((p) => p.name));
  const inQuery = BODY_METHODS.has(route.method)
    ? Object.entries(fields).filter(([k]) => queryNames.has(k))
    : Object.entries(fields);
  const inBody = BODY_METHODS.has(route.method)
    ? Object.fromEntries(Object.entries(fields).filter(([k]) => !queryNames.has(k)))
    : undefined;
  const query = queryString(inQuery);
  const path = request.path + (query ? `?${query}` : "");
  if (!inBody) return send(s, path, { method: route.method, token });
  return send(s, path, {
    method: route.method,
    token,
    headers: { "content-type": "application/json" },
    body: jsonText(inBody),
  });
}

/**
 * Fields as a query string carries them: a list as repeated keys, an object as bracketed keys
 * (`address[city]=x`), anything else as its text.
 */
function queryString(entries: [string, unknown][]): string {
  const pairs: [string, string][] = [];
  const textOf = (v: unknown) => (typeof v === "string" ? v : jsonText(v));
  for (const [key, value] of entries) {
    if (Array.isArray(value)) for (const item of value) pairs.push([key, textOf(item)]);
    else if (value && typeof value === "object" && !(value instanceof Raw)) {
      for (const [sub, v] of Object.entries(value)) pairs.push([`${key}[${sub}]`, textOf(v)]);
    } else pairs.push([key, textOf(value)]);
  }
  return new URLSearchParams(pairs).toString();
}

/**
 * `jsonOnly`: only a JSON body can carry it (a URL cannot hold a lone surrogate: URLSearchParams
 * sends U+FFFD, and an undecodable %-escape is read as its literal text, a valid search).
 */
type Spoiled = { label: string; value: unknown; expect?: Expectation; named?: boolean | string[]; jsonOnly?: boolean };

/** Spoiled values of one field, by kind. */
function spoiledValues(param: RestParam, idLike: boolean): Spoiled[] {
  const strings: Spoiled[] = [
    { label: "an object for a string", value: { a: 1 }, named: true },
    { label: "an array of two for a string", value: ["a", "b"], named: true },
    { label: "a NUL byte", value: UNSTORABLE.nul, named: true },
    { label: "a lone high surrogate", value: UNSTORABLE.loneHigh, named: true, jsonOnly: true },
    { label: "a lone low surrogate", value: UNSTORABLE.loneLow, named: true, jsonOnly: true },
    { label: "a 1 MB string", value: "x".repeat(MB) },
  ];
  switch (param.kind) {
    case text:
      return [
        ...strings,
        { label: "a 300 KB string", value: "y".repeat(300 * 1024) },
        ...(idLike
          ? [...INJECTIONS, ...TRAVERSALS, ...TRICKY_UNICODE].map((v) => ({
              label: `the id ${JSON.stringify(v)}`,
              value: v,
            }))
          : []),
      ];
    case textList:
      return [
        { label: "an object for a list", value: { not: "a list" }, named: true },
        // A query string carries items as text ("{}", "", "nested" are values like any other): JSON only.
        { label: "a list of objects", value: [{}], named: true, jsonOnly: true },
        { label: "a null item", value: [null], named: true, jsonOnly: true },
        { label: "a list of lists", value: [["nested"]], named: true, jsonOnly: true },
        { label: "a JSON-array string cut short", value: '["a", "b"', named: true },
        { label: "51 items", value: Array.from({ length: 51 }, (_, i) => `item ${i}`) },
        { label: "a NUL byte in an item", value: [UNSTORABLE.nul, "ok"], named: true },
        { label: "a lone surrogate in an item", value: [UNSTORABLE.loneHigh], jsonOnly: true },
        { label: "a 1 MB item", value: ["x".repeat(MB)] },
      ];
    case integer:
      return [
        { label: "a word for a number", value: "abc", named: true },
        { label: "a fraction", value: "1.5", named: true },
        { label: "1e309", value: HUGE, named: true },
        { label: "2^64", value: TWO_TO_64, named: true },
        { label: "NaN", value: "NaN", named: true },
        { label: "-1", value: -1, named: true },
        { label: "an object for a number", value: { a: 1 }, named: true },
        { label: "two numbers", value: [1, 2], named: true },
      ];
    case decimal:
      return [
        { label: "a word for a number", value: "abc", named: true },
        { label: "1e309", value: HUGE, named: true },
        { label: "-1e309", value: raw("-1e309"), named: true },
        { label: "NaN", value: "NaN", named: true },
        { label: "Infinity", value: "Infinity", named: true },
        { label: "2^64", value: TWO_TO_64, named: true },
        { label: "-1", value: -1, named: true },
        { label: "an object for a number", value: { a: 1 }, named: true },
      ];
    case boolean:
      return [
        { label: "a word for a boolean", value: "maybe", named: true },
        { label: "2 for a boolean", value: 2, named: true },
        { label: "an object for a boolean", value: { a: 1 }, named: true },
        { label: "two booleans", value: [true, false], named: true },
      ];
    case openingHours:
      return [
        { label: "an object for a list", value: { open: "08:00" }, named: true },
        { label: "hours past 24", value: ["25:00-26:00"], named: true },
        { label: "words for times", value: [{ open: "morning", close: "night" }], named: true },
        { label: "a number for a period", value: [42], named: true },
        { label: "JSON text cut short", value: '[{"open": "08:00"', named: true },
        { label: "a NUL byte in a time", value: [{ open: "08:00\u0000", close: "09:00" }], named: true },
      ];
    case address:
      return [
        { label: "a number for an object", value: 42, named: true },
        { label: "a list for an object", value: [{ city: "Lyon" }], named: true },
        { label: "a word for a latitude", value: { geo: { latitude: "north", longitude: 0 } }, named: true },
        { label: "an infinite latitude", value: { geo: { latitude: HUGE, longitude: 0 } }, named: true },
        { label: "a latitude of 2^64", value: { geo: { latitude: TWO_TO_64, longitude: 0 } }, named: true },
        { label: "an object for a city", value: { city: { name: "Lyon" } }, named: true },
        { label: "a NUL byte in the city", value: { city: UNSTORABLE.nul }, named: true },
        { label: "a 300 KB city", value: { city: "c".repeat(300 * 1024) }, named: true },
      ];
    case contact:
      return [
        { label: "a number for an object", value: 42, named: true },
        // contact's parts become email and phone: the message names the part.
        { label: "an object for an e-mail", value: { email: {} }, named: ["contact", "email"] },
        {
          label: "a lone surrogate in the phone",
          value: { phone: UNSTORABLE.loneLow },
          named: ["contact", "phone"],
          jsonOnly: true,
        },
      ];
    case file:
      return [
        { label: "text for a file", value: "../../etc/passwd", named: true },
        { label: "an object for a file", value: { filename: "x.png", content: "iVBOR" }, named: true },
      ];
    default:
      return [
        { label: "an unknown choice", value: "bogus", named: true },
        { label: "an object for a choice", value: { a: 1 }, named: true },
      ];
  }
}

/** Path ids that match nothing, can never match anything, or try to leave the route. */
const HOSTILE_PATH_IDS: { label: string; segment: string }[] = [
  { label: "an unknown id", segment: "no-such-id" },
  ...TRAVERSALS.map((t) => ({ label: `traversal ${t}`, segment: t.replace(/\.\.\//g, "..%2F") })),
  { label: "an encoded NUL", segment: "a%00b" },
  { label: "an encoded lone surrogate", segment: "%ED%A0%80" },
  { label: "bytes that are not UTF-8", segment: "%FF%FE" },
  ...INJECTIONS.map((i) => ({ label: `injection ${i}`, segment: encodeURIComponent(i) })),
  ...TRICKY_UNICODE.map((u) => ({ label: `unicode ${JSON.stringify(u)}`, segment: encodeURIComponent(u) })),
  { label: "a 150-character id", segment: "i".repeat(150) },
];

/** Envelopes that are broken whatever the fields (for routes that take a body). */
function envelopes(route: RestRoute, fields: Record<string, unknown>) {
  const json = jsonText(fields);
  const boundary = "corpusboundary";
  const textFields = Object.entries(fields).map(([name, v]) => ({
    name,
    value: typeof v === "string" ? v : jsonText(v),
  }));
  const firstText = route.params.find((p) => p.in === "body" && p.kind === text && !p.kind.multipartOnly);
  const fileParam = route.params.find((p) => p.kind === file);
  const list = [
    { label: "malformed JSON", headers: { "content-type": "application/json" }, body: json.slice(0, -1) + ',"' },
    {
      label: "JSON with a __proto__ key",
      headers: { "content-type": "application/json" },
      body: json.replace(/^\{/, '{"__proto__":{"polluted":true},'),
    },
    { label: "a JSON array body", headers: { "content-type": "application/json" }, body: `[${json}]` },
    { label: "a JSON string body", headers: { "content-type": "application/json" }, body: JSON.stringify(json) },
    { label: "JSON null", headers: { "content-type": "application/json" }, body: "null" },
    {
      label: "invalid UTF-8 bytes in JSON",
      headers: { "content-type": "application/json" },
      body: Buffer.concat([
        Buffer.from(json.slice(0, -1) + (json.length > 2 ? "," : "") + '"x":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}'),
      ]),
    },
    {
      label: "a Latin-1 byte in a form",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: Buffer.concat([Buffer.from(`${queryString(Object.entries(fields))}&note=caf`), Buffer.from([0xe9])]),
    },
    {
      label: "a %-escape that is not UTF-8 in a form",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `${queryString(Object.entries(fields))}&note=caf%E9`,
    },
    {
      label: "a Latin-1 byte in a multipart text part",
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      body: Buffer.from(multipartText(boundary, [...textFields, { name: "note", value: "caf\u00e9" }]), "latin1"),
    },
    { label: "text/plain", headers: { "content-type": "text/plain" }, body: json },
    {
      label: "application/xml",
      headers: { "content-type": "application/xml" },
      body: "<restaurant><title>x</title></restaurant>",
    },
    { label: "JSON labelled as a form", headers: { "content-type": "application/x-www-form-urlencoded" }, body: json },
    { label: "no content type", headers: {}, body: Buffer.from(json) },
    {
      label: "multipart without a boundary",
      headers: { "content-type": "multipart/form-data" },
      body: multipartText(boundary, textFields),
    },
    {
      label: "multipart cut short",
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      body: multipartText(boundary, [...textFields, { name: "filler", value: "z".repeat(500) }]).slice(0, -300),
    },
  ];
  if (firstText) {
    list.push({
      label: `a file part where ${firstText.name} (text) is expected`,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      body: multipartText(boundary, [
        ...textFields.filter((f) => f.name !== firstText.name),
        { name: firstText.name, value: "not text", filename: "../../etc/passwd", type: "text/plain" },
      ]),
    });
  }
  if (fileParam) {
    list.push({
      label: `${fileParam.name}: not an image, named ../../etc/passwd`,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      body: multipartText(boundary, [
        ...textFields,
        {
          name: fileParam.name,
          value: "root:x:0:0:root:/root:/bin/bash",
          filename: "../../etc/passwd",
          type: "image/png",
        },
      ]),
    });
    list.push({
      label: `${fileParam.name}: cut short mid-file`,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      body: multipartText(boundary, [
        ...textFields,
        {
          name: fileParam.name,
          value: Buffer.from(PNG).toString("latin1") + "q".repeat(400),
          filename: "%2e%2e%2fx.png",
          type: "image/png",
        },
      ]).slice(0, -200),
    });
  }
  return list;
}

const uploadFiles = () => uploadFilesOf(s);

describe("bad input on every REST route", () => {
  it.each(routes.map((r) => [routeName(r), r] as const))(
    "%s refuses every spoiled request, changing nothing",
    async (_name, route) => {
      const before = tally.problems.length;
      const f = { restaurantId: (await newRestaurant(w)).id, groceryId: (await newGrocery(w)).id };
      const request = validRequest(route, f);
      const token = await freshToken(w, w.owner.id);
      const label = (what: string) => `${routeName(route)} ${what}`;
      const filesBefore = await uploadFiles();

      for (const p of route.params.filter((q) => q.in !== "path")) {
        const idLike = idFor(p.name, route, f) !== undefined;
        const names = [p.name, ...(p.aliases ?? [])];
        if (p.required) {
          const { [p.name]: _dropped, ...rest } = request.fields;
          await tryInput(s, tally, label(`${p.name}: missing`), () => sendFields(route, request, rest, token), {
            mentions: names,
          });
        }
        for (const v of spoiledValues(p, idLike).filter((x) => !x.jsonOnly || BODY_METHODS.has(route.method))) {
          const fields = { ...request.fields, [p.name]: v.value };
          const sent = typeof v.value === "string" ? [v.value] : [];
          // A hostile id matches nothing; a field whose rows share a path may route elsewhere: both 4xx.
          await tryInput(s, tally, label(`${p.name}: ${v.label}`), () => sendFields(route, request, fields, token), {
            expect: v.expect,
            sent,
            mentions: Array.isArray(v.named) ? v.named : v.named && !idLike ? names : undefined,
          });
        }
      }
      for (const p of route.params.filter((q) => q.in === "path")) {
        for (const id of HOSTILE_PATH_IDS) {
          const path = route.path.replace(/:(\w+)/g, (_m, name) =>
            name === p.name ? id.segment : encodeURIComponent(request.params[name]),
          );
          await tryInput(
            s,
            tally,
            label(`:${p.name} ${id.label}`),
            () => sendFields(route, { ...request, path }, request.fields, token),
            {
              sent: [decodeURIComponentSafe(id.segment)],
            },
          );
        }
      }
      if (BODY_METHODS.has(route.method)) {
        for (const e of envelopes(route, request.fields)) {
          await tryInput(s, tally, label(e.label), () =>
            send(s, request.path, { method: route.method, token, headers: e.headers, body: e.body }),
          );
        }
      }
      expect(Object.prototype).not.toHaveProperty("polluted");
      expect(await uploadFiles()).toEqual(filesBefore);
      expect(tally.problems.slice(before)).toEqual([]);
    },
  );

  it("is still ready after the whole run, with no 5xx seen", async () => {
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    expect(tally.inputs).toBeGreaterThan(500);
    expect(tally.serverErrors).toBe(0);
  });
});

describe("unknown fields (tolerated by design)", () => {
  it.each(routes.map((r) => [routeName(r), r] as const))(
    "%s ignores them: answered as without them, none stored",
    async (_name, route) => {
      const f = { restaurantId: (await newRestaurant(w)).id, groceryId: (await newGrocery(w)).id };
      const request = validRequest(route, f);
      const token = await freshToken(w, w.owner.id);
      const marker = `unknown-${Math.random().toString(36).slice(2)}`;
      const fields = { ...request.fields, bogus_field: marker, _: "1700000000000" };
      tally.inputs++;
      const answer = await sendFields(route, request, fields, token);
      if (answer.status >= 500) tally.serverErrors++;
      // The valid request itself must succeed: this also proves the corpus spoiled valid requests.
      const expected = routes.find((r) => r.operation === route.operation)!.status;
      expect(answer.status, answer.text.slice(0, 300)).toBe(expected);
      expect(answer.text).not.toContain(marker);
    },
  );
});

describe("file names sent by clients are never used", () => {
  const NAMES = [
    ...TRAVERSALS,
    "/etc/passwd",
    "C:\\Windows\\x.png",
    ".htaccess",
    "evil\u202Egnp.exe",
    'a"; filename="b.png',
  ];
  const fileRoutes = routes.filter((r) => r.params.some((p) => p.kind === file));

  it.each(fileRoutes.map((r) => [routeName(r), r] as const))(
    "%s stores a real image sent as ../../etc/passwd & co under a random name, inside the upload folder",
    async (_name, route) => {
      const param = route.params.find((p) => p.kind === file)!;
      const outside = () => readdirSync(path.dirname(s.config.uploadDir)).sort();
      const outsideBefore = outside();
      for (const filename of NAMES) {
        const f = { restaurantId: (await newRestaurant(w)).id, groceryId: (await newGrocery(w)).id };
        const request = validRequest(route, f);
        const token = await freshToken(w, w.owner.id);
        const form = new FormData();
        for (const [k, v] of Object.entries(request.fields)) form.append(k, typeof v === "string" ? v : jsonText(v));
        form.append(param.name, new Blob([PNG as Uint8Array<ArrayBuffer>], { type: "image/png" }), filename);
        tally.inputs++;
        const res = await s.fetch(request.path, { method: route.method, token, body: form });
        const body = (await res.json()) as any;
        expect(res.status, `${filename}: ${JSON.stringify(body)}`).toBe(route.status);
        expect(body.cover, filename).toMatch(/^[0-9a-f]{32}\.png$/);
        expect(await uploadFiles()).toContain(body.cover);
      }
      expect(outside()).toEqual(outsideBefore);
    },
  );
});

function decodeURIComponentSafe(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
