// The manifests of trusted documents (TRUSTED_DOCUMENTS_MANIFEST), read once at start-up. Both
// formats the issue names are one JSON object of id -> document text: GraphQL Code Generator's
// client preset writes `persisted-documents.json` so, and relay-compiler's local persistence
// (`persistConfig.file`, the successor of `--persist-output`) too. Several files may be named (one
// per app); an id they share must name the same text. Anything else stops start-up with a
// message naming the file and the entry (src/main.ts: exit 2).
import { readFileSync } from "node:fs";
import { isDocumentId } from "./document-id.ts";

export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManifestError";
  }
}

/** Where a document of the manifests came from, for messages. */
export type ManifestEntry = { text: string; file: string };

const problem = (file: string, message: string) => new ManifestError(`TRUSTED_DOCUMENTS_MANIFEST: ${file}: ${message}`);

function entriesOf(file: string): [string, unknown][] {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (error) {
    throw problem(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (error) {
    throw problem(file, `is not JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw problem(file, 'is not a JSON object of id -> document text, as {"<id>": "query ..."}');
  return Object.entries(parsed);
}

/** Every document of the manifests by id; throws ManifestError naming the first bad file or entry. */
export function readManifests(files: readonly string[]): Map<string, ManifestEntry> {
  const documents = new Map<string, ManifestEntry>();
  for (const file of files) {
    const entries = entriesOf(file);
    if (entries.length === 0) throw problem(file, "holds no document");
    for (const [id, text] of entries) {
      const entry = `entry ${JSON.stringify(id.slice(0, 140))}`;
      if (!isDocumentId(id))
        throw problem(file, `${entry}: an id is 1 to 128 printable ASCII characters without spaces`);
      if (typeof text !== "string" || text.trim() === "")
        throw problem(file, `${entry}: the value must be the document's text`);
      const earlier = documents.get(id);
      if (earlier && earlier.text !== text)
        throw problem(file, `${entry}: ${earlier.file} names another document with the same id`);
      documents.set(id, { text, file });
    }
  }
  return documents;
}
