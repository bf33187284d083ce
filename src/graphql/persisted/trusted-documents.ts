// Trusted documents (TRUSTED_DOCUMENTS): the operations a first-party API's own apps were built
// with, from the manifests of their build (manifest.ts). `off` admits any text, as before;
// `allow` also serves the manifests' documents by id; `enforce` runs nothing else: a document is
// trusted when its text is exactly one of the manifests' (however it came: by id, or as text).
// A signed-in admin may still send any text under `enforce` (TRUSTED_DOCUMENTS_ADMIN_TEXT), so
// the IDE stays usable with an admin's token. The REST shim's documents are the server's own and
// never pass here. The check itself is a step of the one admission path (operation.ts).
import { GraphQLError, parse, type DocumentNode } from "graphql";
import type { Viewer } from "../../domain/accounts/tokens.ts";
import { ManifestError, type ManifestEntry } from "./manifest.ts";

export type TrustMode = "off" | "allow" | "enforce";

/** A SHA-256 id as the client preset writes it (`sha256:<hex>`) or as Apollo's extension carries it (bare hex). */
const SHA256_ID = /^(sha256:)?([0-9a-fA-F]{64})$/;

export class TrustedDocuments {
  private readonly texts: Set<string>;
  /** Each id, and each SHA-256 id under its other spelling too (with and without `sha256:`). */
  private readonly byId = new Map<string, string>();

  constructor(
    readonly mode: TrustMode,
    private readonly documents: ReadonlyMap<string, ManifestEntry> = new Map(),
    private readonly adminsSendText = true,
  ) {
    this.texts = new Set([...documents.values()].map((entry) => entry.text));
    for (const [id, { text }] of documents) this.byId.set(id, text);
    for (const [id, { text }] of documents) {
      const hex = SHA256_ID.exec(id)?.[2].toLowerCase();
      if (hex === undefined) continue;
      for (const spelling of [hex, `sha256:${hex}`]) if (!this.byId.has(spelling)) this.byId.set(spelling, text);
    }
  }

  /** Off: no manifest is read. */
  static readonly off = new TrustedDocuments("off");

  get size(): number {
    return this.documents.size;
  }

  /** The text of a manifest document (undefined: no such id, or trust is off). */
  textOf(id: string): string | undefined {
    return this.byId.get(id);
  }

  /** Whether texts that are not the manifests' are refused (so never registered or looked up elsewhere). */
  get enforced(): boolean {
    return this.mode === "enforce";
  }

  /** The refusal of a text this viewer may not run (undefined: it may). */
  refusal(text: string, viewer: Viewer | null): GraphQLError | undefined {
    if (this.mode !== "enforce" || this.texts.has(text)) return undefined;
    if (this.adminsSendText && viewer?.role === "ADMIN") return undefined;
    return new GraphQLError(
      "This service runs only its trusted documents (TRUSTED_DOCUMENTS=enforce): send one of its apps' operations by id " +
        "(documentId, or extensions.persistedQuery.sha256Hash) or by its exact text.",
      { extensions: { code: "DOCUMENT_NOT_TRUSTED", http: { status: 400 } } },
    );
  }

  /**
   * Start-up: every document must parse and pass the same validation a client's document passes
   * (`problems`: the runner's), else ManifestError naming the entry.
   */
  check(parseOptions: { maxTokens: number }, problems: (document: DocumentNode) => readonly GraphQLError[]): void {
    for (const [id, { text, file }] of this.documents) {
      const where = `TRUSTED_DOCUMENTS_MANIFEST: ${file}: entry ${JSON.stringify(id)}`;
      let document: DocumentNode;
      try {
        document = parse(text, parseOptions);
      } catch (error) {
        throw new ManifestError(`${where} does not parse: ${(error as Error).message}`);
      }
      const found = problems(document);
      if (found.length > 0) throw new ManifestError(`${where} does not validate: ${found[0].message}`);
    }
  }
}
