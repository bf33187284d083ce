// The text a request runs when it names its document by id (document-id.ts): a trusted document
// of the manifests first (trusted-documents.ts), else a text registered as an automatic persisted
// query (persisted-queries.ts), never the latter under TRUSTED_DOCUMENTS=enforce, where only the
// manifests' documents run and nothing is registered. Every transport takes its text from here before
// admission (operation.ts), so an id means the same on GET and POST /graphql, WebSocket and SSE.
import { createHash } from "node:crypto";
import { GraphQLError } from "graphql";
import { documentReference, type DocumentReference, type SentDocument } from "./document-id.ts";
import type { PersistedQueries, Registration } from "./persisted-queries.ts";
import type { TrustedDocuments } from "./trusted-documents.ts";

/**
 * The text to run: as sent when the request named no id; else (`named`) the text the id names,
 * or the one sent beside its hash, with the hash to register it under once admitted. Or the refusal.
 */
export type DocumentText =
  { text: unknown; named?: undefined } | { text: string; named: true; register?: string } | { refused: GraphQLError };

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

const refused = (code: string, message: string, status = 400): DocumentText => ({
  refused: new GraphQLError(message, { extensions: { code, http: { status } } }),
});

export class PersistedDocuments {
  constructor(
    readonly trusted: TrustedDocuments,
    readonly queries: PersistedQueries,
    /** Hears what became of each registration (metrics). */
    private readonly observe: (outcome: Registration) => void = () => {},
  ) {}

  /** The text `sent` names; a promise only when it has to ask the shared store. */
  textOf(sent: SentDocument): DocumentText | Promise<DocumentText> {
    const reference = documentReference(sent);
    if (reference === undefined) return { text: sent.query };
    if (reference instanceof GraphQLError) return { refused: reference };
    if (reference.kind === "apq" && reference.withText) return this.registering(reference.hash, sent.query);
    const trusted = this.trusted.textOf(reference.kind === "apq" ? reference.hash : reference.id);
    if (trusted !== undefined) return { text: trusted, named: true };
    const hash = reference.kind === "apq" ? reference.hash : reference.sha256;
    if (hash === undefined || this.trusted.enforced) return this.notFound(reference);
    return this.queries
      .get(hash)
      .then((text) => (text === undefined ? this.notFound(reference) : { text, named: true }));
  }

  /** Keeps a text under its hash, once it has been admitted (see textOf's `register`). */
  async register(hash: string, text: string, client: string): Promise<Registration> {
    const outcome = await this.queries.register(hash, text, client);
    this.observe(outcome);
    return outcome;
  }

  private registering(hash: string, query: unknown): DocumentText {
    if (typeof query !== "string")
      return refused("BAD_REQUEST", "Send the operation's text as `query` (a string) beside its sha256Hash.");
    if (sha256(query) !== hash)
      return refused(
        "BAD_REQUEST",
        "extensions.persistedQuery.sha256Hash is not the SHA-256 of the text sent with it (its UTF-8 bytes, in hexadecimal).",
      );
    return { text: query, named: true, register: this.trusted.enforced ? undefined : hash };
  }

  private notFound(reference: DocumentReference): DocumentText {
    if (reference.kind === "apq" && !this.trusted.enforced)
      // Automatic persisted queries: the client's cue to send the text with its hash. Apollo
      // Server's words and status (200), which urql matches on and Apollo Client 3 needs (it
      // stops sending hashes after a 400).
      return refused("PERSISTED_QUERY_NOT_FOUND", "PersistedQueryNotFound", 200);
    const named =
      reference.kind === "apq" ? `sha256Hash ${reference.hash}` : `${reference.field} ${JSON.stringify(reference.id)}`;
    return refused(
      "PERSISTED_QUERY_NOT_FOUND",
      this.trusted.enforced
        ? `No trusted document has the ${named}: this service runs only the documents of its manifest (TRUSTED_DOCUMENTS=enforce).`
        : `No document has the ${named}: an id names a document of the service's manifest (TRUSTED_DOCUMENTS) or a text registered as an automatic persisted query.`,
    );
  }
}
