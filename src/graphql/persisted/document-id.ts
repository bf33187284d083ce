// How a client names a document by id instead of sending its text. Three forms are taken, the
// ones real clients send:
//
// - `extensions.persistedQuery: {version: 1, sha256Hash}`: automatic persisted queries (Apollo
//   Client's persisted-queries link, urql's persisted exchange), on GET and POST. With the text
//   beside it, the client registers that text under its hash.
// - `documentId`: GraphQL over HTTP's persisted documents (`sha256:<hex>` or a bare id), what a
//   client built on the Code Generator's client preset sends.
// - `doc_id`: what Relay's documentation has a network layer send (`operation.id`).
//
// Each is checked for its shape here, so a malformed one is a 400 naming the field, never a lookup.
import { GraphQLError } from "graphql";

/** A document id: 1 to 128 printable ASCII characters without spaces (hashes in hex or base64, `sha256:...`). */
const DOCUMENT_ID = /^[\x21-\x7e]{1,128}$/;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

export const isDocumentId = (id: string) => DOCUMENT_ID.test(id);

/** What a client sent in place of (or beside) a document's text. */
export type SentDocument = { query?: unknown; extensions?: unknown; documentId?: unknown; doc_id?: unknown };

/**
 * `apq`: a SHA-256 (lower-case hex) in Apollo's extension, with or without the text;
 * `id`: a documentId or doc_id, never with the text. `sha256` is the id's hash when it is one.
 */
export type DocumentReference =
  | { kind: "apq"; hash: string; withText: boolean }
  | { kind: "id"; id: string; field: "documentId" | "doc_id"; sha256: string | undefined };

const badRequest = (message: string) => new GraphQLError(message, { extensions: { code: "BAD_REQUEST" } });

/** Whether text came beside the id: an empty `query` is none (graphql-ws's codec wants a string there). */
const hasText = (query: unknown) => query != null && query !== "";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function apqReference(persisted: unknown, withText: boolean): DocumentReference | GraphQLError {
  if (!isRecord(persisted) || persisted.version !== 1)
    return badRequest("extensions.persistedQuery must be {version: 1, sha256Hash}: only version 1 is supported.");
  // The client preset's hashes read `sha256:<hex>`: an Apollo link sending them is understood too.
  const sent = persisted.sha256Hash;
  const hash = typeof sent === "string" && sent.startsWith("sha256:") ? sent.slice("sha256:".length) : sent;
  if (typeof hash !== "string" || !SHA256_HEX.test(hash))
    return badRequest(
      "extensions.persistedQuery.sha256Hash must be the SHA-256 of the document's text, as 64 hexadecimal digits.",
    );
  return { kind: "apq", hash: hash.toLowerCase(), withText };
}

function idReference(field: "documentId" | "doc_id", id: unknown, query: unknown): DocumentReference | GraphQLError {
  if (typeof id !== "string" || !isDocumentId(id))
    return badRequest(`${field} must be a document id: 1 to 128 printable ASCII characters without spaces.`);
  if (hasText(query)) return badRequest(`Send the document's text (query) or its id (${field}), not both.`);
  const hex = id.startsWith("sha256:") ? id.slice("sha256:".length) : id;
  return { kind: "id", id, field, sha256: SHA256_HEX.test(hex) ? hex.toLowerCase() : undefined };
}

/** The id a request names its document by (undefined: none, the text is all), or the 400 refusing a malformed one. */
export function documentReference(sent: SentDocument): DocumentReference | GraphQLError | undefined {
  const persisted = isRecord(sent.extensions) ? sent.extensions.persistedQuery : undefined;
  const named = [persisted != null, sent.documentId != null, sent.doc_id != null].filter(Boolean).length;
  if (named === 0) return undefined;
  if (named > 1)
    return badRequest("Name the document once: by extensions.persistedQuery, documentId or doc_id, not several.");
  if (persisted != null) return apqReference(persisted, hasText(sent.query));
  if (sent.documentId != null) return idReference("documentId", sent.documentId, sent.query);
  return idReference("doc_id", sent.doc_id, sent.query);
}
