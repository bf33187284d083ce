// What the bad-input corpus tests share: the hostile values, raw request sending, the checks on
// every answer (no 5xx, a code and a message that helps, nothing leaked, nothing changed) and the
// tally printed at the end.
import type { TestServer } from "../helpers/server.ts";
import { databaseState, stateChanges } from "./database-state.ts";

export const MB = 1024 * 1024;

/** Invalid as text: the databases cannot keep them as sent. */
export const UNSTORABLE = { nul: "before\u0000after", loneHigh: "a\ud800b", loneLow: "\udc00tail" };

/** Shapes of attack in text; harmless as data, so only refused where they are used as ids. */
export const INJECTIONS = [
  "' OR 1=1 --",
  '"; DROP TABLE "User"; --',
  '1; DELETE FROM "Restaurant"',
  "<script>alert(1)</script>",
  "{{7*7}}${7*7}",
];

/** Path traversal, raw and percent-encoded once or twice. */
export const TRAVERSALS = [
  "../../etc/passwd",
  "..%2F..%2Fetc%2Fpasswd",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "..\\..\\windows\\win.ini",
];

/** Valid Unicode that is easy to get wrong: RTL override, zero-width joiner, emoji, combining marks. */
export const TRICKY_UNICODE = [
  "evil\u202Etxt.exe",
  "👩‍👩‍👧 family",
  "e\u0301 a\u0308 n\u0303",
  "\u200Bzero\u200Dwidth\u2060",
  "🍜🔥",
];

/** A JSON value written as raw text where JSON.stringify cannot (Infinity, 2^64 as digits). */
export class Raw {
  constructor(readonly text: string) {}
}
export const raw = (text: string) => new Raw(text);
export const HUGE = raw("1e309");
export const TWO_TO_64 = raw("18446744073709551616");

/** JSON text of a value that may hold Raw parts. */
export function jsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v) => (v instanceof Raw ? `\u0001raw${raws.push(v.text) - 1}\u0001` : v));
  return text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_m, i) => raws[Number(i)]);
}

export type Answer = { status: number; text: string; json: any };

export async function send(
  s: TestServer,
  path: string,
  init: Omit<RequestInit, "body" | "headers"> & {
    token?: string;
    body?: string | Buffer;
    headers?: Record<string, string | undefined>;
  },
): Promise<Answer> {
  const { token, ...rest } = init;
  const headers = new Headers(
    Object.entries(rest.headers ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
  );
  if (token) headers.set("authorization", `Bearer ${token}`);
  let res: Response;
  try {
    res = await fetch(s.url + path, { ...rest, headers, body: rest.body as BodyInit | undefined });
  } catch (error) {
    // The server hung up without an answer: as bad as a 5xx for a client.
    return { status: 599, text: String(error), json: undefined };
  }
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** Traces of internals in an answer (the values the client sent are taken out first: they may be echoed). */
const LEAKS: [string, RegExp][] = [
  [
    "a stack frame",
    /\bat (?:async )?[\w$.<>[\] ]+ \(|\bat (?:file:\/\/)?\/[\w./-]+:\d+:\d+|\.(?:ts|js|mjs|cjs):\d+:\d+/,
  ],
  ["node_modules", /node_modules/],
  ["prisma", /prisma/i],
  ["SQL", /\b(?:SELECT|INSERT|UPDATE\s+"|DELETE\s+FROM)\b/],
  ["sqlite", /sqlite/i],
  ["postgres", /postgres|\bpg_|SQLSTATE/i],
];

export function leaksIn(text: string, sent: string[] = []): string[] {
  let scrubbed = text;
  for (const value of sent.filter((v) => v.length > 2)) {
    // As sent, escaped once (in a JSON string), or twice (quoted in a message, then in JSON).
    const once = JSON.stringify(value).slice(1, -1);
    const twice = JSON.stringify(JSON.stringify(value)).slice(1, -1);
    for (const form of [twice, once, value]) scrubbed = scrubbed.split(form).join("");
  }
  return LEAKS.filter(([, pattern]) => pattern.test(scrubbed)).map(([name]) => name);
}

/** The client-facing error of an answer: REST's {"error": {...}} or GraphQL's first error. */
export function errorOf(answer: Answer): { code?: string; message?: string } | undefined {
  const body = answer.json;
  if (body?.error && typeof body.error === "object") return body.error;
  if (Array.isArray(body?.errors) && body.errors[0])
    return { code: body.errors[0].extensions?.code, message: body.errors[0].message };
  return undefined;
}

/** Counts what the corpus tried and keeps every problem found, to fail once with all of them. */
export class Tally {
  inputs = 0;
  serverErrors = 0;
  problems: string[] = [];

  constructor(readonly name: string) {}

  note(label: string, problem: string) {
    this.problems.push(`${label}: ${problem}`);
  }

  summary() {
    return `${this.name}: ${this.inputs} inputs tried, ${this.serverErrors} 5xx (or INTERNAL_SERVER_ERROR) seen, ${this.problems.length} problems`;
  }
}

export type Expectation =
  /** Refused: a 4xx (REST) or a GraphQL error whose code is not INTERNAL_SERVER_ERROR. */
  | "refused"
  /** Refused, or answered as a call that did nothing (e.g. an id that matches nothing). */
  | "refusedOrNoop";

/**
 * Sends one hostile request and checks the answer and the database. `mentions`: a word the
 * error message should contain (the field the client must fix), for 400s.
 */
export async function tryInput(
  s: TestServer,
  tally: Tally,
  label: string,
  request: () => Promise<Answer>,
  { expect = "refused", sent = [], mentions }: { expect?: Expectation; sent?: string[]; mentions?: string[] } = {},
) {
  tally.inputs++;
  const before = await databaseState(s.db);
  const answer = await request();
  const after = await databaseState(s.db);
  const error = errorOf(answer);
  const internal = answer.status >= 500 || error?.code === "INTERNAL_SERVER_ERROR";
  if (internal) tally.serverErrors++;

  const graphqlData = answer.json?.data && Object.values(answer.json.data).some((v) => v !== null);
  const refused = answer.status >= 400 || (answer.json?.errors?.length > 0 && !graphqlData);
  const changes = stateChanges(before, after);
  if (internal) tally.note(label, `server error ${answer.status} ${answer.text.slice(0, 300)}`);
  else if (expect === "refused" && !refused)
    tally.note(label, `accepted (${answer.status}): ${answer.text.slice(0, 200)}`);
  if (changes.length) tally.note(label, `changed the database: ${changes.join(", ")}`);
  if (refused && !internal) {
    if (!error?.code) tally.note(label, `no error code in ${answer.status} ${answer.text.slice(0, 200)}`);
    if (!error?.message?.trim()) tally.note(label, `no message in ${answer.status} ${answer.text.slice(0, 200)}`);
    else if (
      mentions &&
      (answer.status === 400 || error.code === "BAD_USER_INPUT") &&
      !mentions.some((m) => error.message!.includes(m))
    ) {
      tally.note(label, `message does not name ${mentions.join(" or ")}: ${error.message.slice(0, 200)}`);
    }
  }
  if (process.env.CORPUS_VERBOSE)
    console.log(`${label} -> ${answer.status} ${error?.code ?? ""} ${error?.message?.slice(0, 160) ?? ""}`);
  const leaks = leaksIn(answer.text, sent);
  if (leaks.length) tally.note(label, `leaks ${leaks.join(", ")}: ${answer.text.slice(0, 300)}`);
  return answer;
}

/** A multipart body by hand (so it can be cut short or lack its boundary). */
export function multipartText(
  boundary: string,
  parts: { name: string; value: string; filename?: string; type?: string }[],
): string {
  return (
    parts
      .map((p) => {
        const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ""}`;
        return `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ""}\r\n${p.value}\r\n`;
      })
      .join("") + `--${boundary}--\r\n`
  );
}
