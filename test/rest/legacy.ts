// What the REST contract tests share: requests as legacy clients send them (JSON, urlencoded
// forms with repeated keys, multipart with a file) and a field-by-field shape assertion.
import { expect } from "vitest";
import type { TestServer } from "../helpers/server.ts";

export type Answer = { status: number; body: any; headers: Headers };

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown = text;
  if (text && (res.headers.get("content-type") ?? "").includes("json")) body = JSON.parse(text);
  return { status: res.status, body, headers: res.headers };
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";

export async function sendJson(
  s: TestServer,
  method: Method,
  path: string,
  json?: unknown,
  token?: string,
): Promise<Answer> {
  return answer(await s.fetch(path, { method, json, token }));
}

/** A urlencoded form; array values become repeated keys, as browsers and most HTTP libraries send them. */
export function formBody(fields: Record<string, string | number | boolean | (string | number)[]>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  return params.toString();
}

export async function sendForm(
  s: TestServer,
  method: Method,
  path: string,
  fields: Parameters<typeof formBody>[0],
  token?: string,
): Promise<Answer> {
  return answer(
    await s.fetch(path, {
      method,
      token,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: formBody(fields),
    }),
  );
}

export type FilePart = { name: string; filename: string; type: string; content: Uint8Array };

export async function sendMultipart(
  s: TestServer,
  method: Method,
  path: string,
  fields: Record<string, string | string[]>,
  files: FilePart[] = [],
  token?: string,
): Promise<Answer> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields))
    for (const v of Array.isArray(value) ? value : [value]) form.append(key, v);
  for (const f of files)
    form.append(f.name, new Blob([f.content as Uint8Array<ArrayBuffer>], { type: f.type }), f.filename);
  return answer(await s.fetch(path, { method, token, body: form }));
}

export async function get(s: TestServer, path: string, token?: string): Promise<Answer> {
  return answer(await s.fetch(path, { token }));
}

/** A 1x1 PNG: real image bytes, so servers that sniff content accept it. */
export const PNG = Uint8Array.from(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    "base64",
  ),
);

/**
 * Field types, as a legacy client's parser would check them: "string", "number", "integer",
 * "boolean", "null", unions such as "string|null", "string[]", or a nested spec (object) /
 * [spec] (array of objects), [] (an empty array). `expectShape` asserts the exact set of keys and each value's type.
 */
export type Spec = string | { [field: string]: Spec } | [Spec] | [];

function typeMatches(value: unknown, type: string): boolean {
  return type.split("|").some((t) => {
    switch (t) {
      case "null":
        return value === null;
      case "string":
        return typeof value === "string";
      case "number":
        return typeof value === "number" && Number.isFinite(value);
      case "integer":
        return Number.isInteger(value);
      case "boolean":
        return typeof value === "boolean";
      case "string[]":
        return Array.isArray(value) && value.every((v) => typeof v === "string");
      default:
        throw new Error(`unknown type ${t}`);
    }
  });
}

export function expectShape(value: unknown, spec: Spec, path = "body"): void {
  if (typeof spec === "string") {
    expect(typeMatches(value, spec), `${path} should be ${spec}, got ${JSON.stringify(value)}`).toBe(true);
    return;
  }
  if (Array.isArray(spec)) {
    expect(Array.isArray(value), `${path} should be an array`).toBe(true);
    if (spec.length === 0) return void expect(value, `${path} should be empty`).toEqual([]);
    (value as unknown[]).forEach((item, i) => expectShape(item, spec[0], `${path}[${i}]`));
    return;
  }
  expect(
    value !== null && typeof value === "object" && !Array.isArray(value),
    `${path} should be an object, got ${JSON.stringify(value)}`,
  ).toBe(true);
  expect(Object.keys(value as object).sort(), `keys of ${path}`).toEqual(Object.keys(spec).sort());
  for (const [key, sub] of Object.entries(spec))
    expectShape((value as Record<string, unknown>)[key], sub, `${path}.${key}`);
}

const PERSON: Spec = {
  user_id: "string",
  user_avatar: "string|null",
  user_username: "string",
  user_first_name: "string",
  user_rating: "number|null",
};

export const ADDRESS: Spec = {
  addressLine1: "string|null",
  addressLine2: "string|null",
  landmark: "string|null",
  state: "string|null",
  city: "string|null",
  district: "string|null",
  country: "string|null",
  geo: "null",
};
export const ADDRESS_WITH_GEO: Spec = { ...(ADDRESS as object), geo: { latitude: "number", longitude: "number" } };

export const restaurantEditedSpec = (address: Spec = ADDRESS): Record<string, Spec> => ({
  _id: "string",
  title: "string",
  logo: "string|null",
  url: "string|null",
  type: "string[]",
  categories: "string[]",
  accepts_reservations: "string",
  serves_cuisine: "string[]",
  star_rating: "string|null",
  opening_hours: "string[]",
  payment_methods: "string[]",
  can_home_delever: "boolean",
  price_range: "string[]",
  photos: "string[]",
  address,
  contact: { email: "string|null", phone: "string|null" },
  owner: PERSON,
});

export const restaurantDetailSpec = (opts: { address?: Spec; badges?: boolean; comment?: boolean } = {}): Spec => ({
  ...restaurantEditedSpec(opts.address),
  badges: opts.badges
    ? [{ badge_id: "string", badge_name: "string", badge_cover: "string|null", recieved: "string" }]
    : [],
  comments: opts.comment ? { ...(PERSON as object), comment: "string", rating: "integer" } : "null",
});

export const SEARCH_ITEM = (address: Spec = ADDRESS): Spec => ({
  _id: "string",
  title: "string",
  url: "string|null",
  cover: "string|null",
  opening_hours: [{ open: "string", close: "string" }],
  can_home_delever: "boolean",
  address,
  email: "string|null",
  phone: "string|null",
  website: "string|null",
  rating: "number|null",
});

export const COMMENT: Spec = {
  _id: "string",
  user: { _id: "string", username: "string", first_name: "string" },
  title: "string",
  body: "string",
  rating: "string",
};

export const GROCERY: Spec = {
  _id: "string",
  title: "string",
  description: "string",
  also_known_as: "string",
  cover: "string|null",
  metric_units: "string[]",
  categories: "string[]",
};

export const REPORT: Spec = {
  _id: "string",
  target_type: "string",
  target_id: "string",
  reason_type: "string",
  reason_body: "string",
  status: "string",
  created: "boolean",
  created_at: "string",
};

export const ERROR: Spec = { error: { code: "string", message: "string" } };

export function expectError(a: Answer, status: number, code: string, message?: RegExp) {
  expect(a.status, JSON.stringify(a.body)).toBe(status);
  expect(a.body.error.code).toBe(code);
  expect(typeof a.body.error.message).toBe("string");
  if (message) expect(a.body.error.message).toMatch(message);
}
