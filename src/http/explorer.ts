// The GraphQL IDE at GET /explorer: GraphiQL 5 as bundled by @graphql-yoga/render-graphiql, one
// self-contained page (scripts, styles, fonts and Monaco's workers all inlined, ~9 MB), so it works
// with no internet access. The page is rendered on first use (start-up stays fast; servers that
// never show it never pay), kept in memory once per process with gzip and brotli copies, and sent
// with an ETag so a browser revalidates it with a 304 instead of fetching megabytes again.
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";

export const EXPLORER_PATH = "/explorer";
const GRAPHQL_PATH = "/graphql";

// Shown in the editor on a first visit (GraphiQL keeps the user's own text afterwards).
export const EXPLORER_DEFAULT_QUERY = `# Restaurants and groceries GraphQL API
#
# 1. Get a token: run Register (pick your own username) or Login; the run button's
#    menu picks the operation.
# 2. Open "Headers" below and send the token with every request:
#      { "Authorization": "Bearer <accessToken from step 1>" }
#    (Tokens are not stored by this page: paste it again after a reload.)
# 3. Run SearchRestaurants. Every operation other than register/login needs the token.
# 4. Subscriptions run here too (over WebSocket), e.g.
#      subscription { commentAdded(restaurantId: "<id>") { title rating author { username } } }
#    shows each new comment on that restaurant as it is posted; stop it with the run button.
#
# The docs (book icon, left) list every type and field; Ctrl-Space completes, Ctrl-Enter runs.

mutation Register {
  register(input: { username: "ann", password: "correct-horse", firstName: "Ann" }) {
    accessToken
    expiresAt
    user { id username }
  }
}

mutation Login {
  login(username: "ann", password: "correct-horse") {
    accessToken
  }
}

query SearchRestaurants {
  restaurants(filter: { text: "pizza" }, sort: RATING, first: 10) {
    totalCount
    nodes { id title rating cuisines address { city } }
    pageInfo { hasNextPage endCursor }
  }
}
`;

type Encoding = "br" | "gzip" | "identity";

type ExplorerPage = {
  html: Buffer;
  /** Content hash: ETags are derived from it, so a new release invalidates cached copies. */
  hash: string;
  contentSecurityPolicy: string;
  compressed: Partial<Record<Exclude<Encoding, "identity">, Promise<Buffer>>>;
};

let page: Promise<ExplorerPage> | undefined;

/** The page, rendered once per process (the options are constants, so every server shares it). */
export function explorerPage(): Promise<ExplorerPage> {
  page ??= renderPage().catch((error) => {
    page = undefined; // let the next request try again rather than remember a failure
    throw error;
  });
  return page;
}

async function renderPage(): Promise<ExplorerPage> {
  // Imported here, not at the top: the module is a 9 MB string that start-up need not parse.
  const { renderGraphiQL } = await import("@graphql-yoga/render-graphiql");
  const html = renderGraphiQL({
    title: "Restaurants and Groceries GraphQL",
    endpoint: GRAPHQL_PATH,
    defaultQuery: EXPLORER_DEFAULT_QUERY,
    // Tokens stay out of localStorage; GraphiQL would otherwise persist the headers pane.
    shouldPersistHeaders: false,
    // Subscriptions over graphql-ws on the same path; GraphiQL sends the Headers pane in each
    // subscribe message's extensions.headers, which src/graphql/subscriptions/websocket.ts reads.
    subscriptionsProtocol: "WS",
  });
  const bytes = Buffer.from(html);
  return {
    html: bytes,
    hash: createHash("sha256").update(bytes).digest("base64url").slice(0, 22),
    contentSecurityPolicy: contentSecurityPolicy(html),
    compressed: {},
  };
}

/** The bodies of the page's `<script>` elements (found with indexOf: one pass, whatever the page holds). */
function inlineScripts(html: string): string[] {
  const bodies: string[] = [];
  for (let at = html.indexOf("<script>"); at >= 0; at = html.indexOf("<script>", at)) {
    const start = at + "<script>".length;
    const end = html.indexOf("</script>", start);
    if (end < 0) break;
    bodies.push(html.slice(start, end));
    at = end;
  }
  return bodies;
}

/**
 * Only this server: the page's one inline script (by hash), styles (GraphiQL and Monaco also set
 * style attributes, hence 'unsafe-inline'), inlined fonts and images, Monaco's workers (blob: URLs
 * made by the page) and requests to /graphql on the same origin.
 */
function contentSecurityPolicy(html: string): string {
  const scripts = inlineScripts(html).map((body) => `'sha256-${createHash("sha256").update(body).digest("base64")}'`);
  return [
    "default-src 'none'",
    `script-src ${scripts.join(" ")}`,
    "style-src 'self' 'unsafe-inline'",
    "font-src 'self' data:",
    "img-src 'self' data:",
    "worker-src blob:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

function compressed(explorer: ExplorerPage, encoding: Exclude<Encoding, "identity">): Promise<Buffer> {
  // zlib's async calls run on the thread pool: the event loop keeps serving while this runs once.
  explorer.compressed[encoding] ??=
    encoding === "br"
      ? promisify(brotliCompress)(explorer.html, {
          // Quality 9 gives ~1.9 MB in under a second; 11 saves 8% more but takes ~13 s.
          params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: explorer.html.length },
        })
      : promisify(gzip)(explorer.html, { level: 9 });
  return explorer.compressed[encoding];
}

/** The best encoding the client accepts (RFC 9110 Accept-Encoding with q-values); brotli wins ties. */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding {
  const weights = new Map<string, number>();
  for (const part of (acceptEncoding ?? "").toLowerCase().split(",")) {
    const [name, ...params] = part.split(";").map((s) => s.trim());
    if (!name) continue;
    const q = params.find((p) => p.startsWith("q="));
    const weight = q ? Number(q.slice(2)) : 1;
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weight = (name: string) => weights.get(name) ?? weights.get("*") ?? 0;
  const br = weight("br");
  const gz = weight("gzip");
  if (br > 0 && br >= gz) return "br";
  return gz > 0 ? "gzip" : "identity";
}

/** True when If-None-Match names this ETag (weak comparison, as RFC 9110 asks for GET). */
function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || bare(tag) === etag);
}

async function sendExplorer(request: FastifyRequest, reply: FastifyReply) {
  const explorer = await explorerPage();
  const encoding = chooseEncoding(request.headers["accept-encoding"]);
  const etag = `"${explorer.hash}${encoding === "identity" ? "" : `-${encoding}`}"`;
  reply
    .header("content-type", "text/html; charset=utf-8")
    .header("content-security-policy", explorer.contentSecurityPolicy)
    .header("etag", etag)
    // Cached, but checked with the server each time: a release brings the new page at once.
    .header("cache-control", "no-cache")
    .header("vary", "accept-encoding");
  if (notModified(request.headers["if-none-match"], etag)) return reply.code(304).send();
  if (encoding === "identity") return reply.send(explorer.html);
  return reply.header("content-encoding", encoding).send(await compressed(explorer, encoding));
}

// Encapsulated: it only adds a route.
export const explorerPlugin = fp(
  async (app: FastifyInstance) => {
    app.get(EXPLORER_PATH, sendExplorer);
  },
  { name: "explorer", fastify: "5.x", encapsulate: true },
);
