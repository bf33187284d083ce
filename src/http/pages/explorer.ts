// The GraphQL IDE at GET /explorer: GraphiQL 5 as bundled by @graphql-yoga/render-graphiql, one
// self-contained page (scripts, styles, fonts and Monaco's workers all inlined, ~9 MB), so it works
// with no internet access. The page is rendered on first use (start-up stays fast; servers that
// never show it never pay), kept in memory once per process with gzip and brotli copies, and sent
// with an ETag so a browser revalidates it with a 304 instead of fetching megabytes again.
// /playground and /graphiql, where users of GraphQL Playground and GraphiQL look first, lead here.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { EXAMPLE_ACCOUNT, EXAMPLE_RESTAURANT, IDE_SEARCH } from "../../contract/examples.ts";
import {
  cspHash,
  prepareResponse,
  REVALIDATE,
  sendPrepared,
  type PreparedResponse,
} from "../answers/prepared-response.ts";

export const EXPLORER_PATH = "/explorer";
/** Where people who used GraphQL Playground or GraphiQL look for the IDE first. */
export const EXPLORER_ALIASES = ["/playground", "/graphiql"];
const GRAPHQL_PATH = "/graphql";

const { username, password, firstName } = EXAMPLE_ACCOUNT;

// Shown in the editor on a first visit (GraphiQL keeps the user's own text afterwards). The
// account and the search are the README's (src/contract/examples.ts); the test of the examples runs
// this document too.
export const EXPLORER_DEFAULT_QUERY = `# Restaurants and groceries GraphQL API
#
# 1. Get a token: run Register once (the run button's menu picks the operation), or Login
#    when the account exists already (the README registers the same one).
# 2. Open "Headers" below and send the token with every request:
#      { "Authorization": "Bearer <accessToken from step 1>" }
#    (Tokens are not stored by this page: paste it again after a reload.)
# 3. Run SearchRestaurants (\`npm run seed\` loads the demo data it searches). Every operation
#    other than register/login needs the token.
# 4. Subscriptions run here too (over WebSocket), e.g.
#      subscription { commentAdded(restaurantId: "${EXAMPLE_RESTAURANT.id}") { title rating author { username } } }
#    shows each new comment on ${EXAMPLE_RESTAURANT.title} as it is posted; stop it with the run button.
#
# The docs (book icon, left) list every type and field; Ctrl-Space completes, Ctrl-Enter runs.

mutation Register {
  register(input: { username: "${username}", password: "${password}", firstName: "${firstName}" }) {
    accessToken
    expiresAt
    user { id username }
  }
}

mutation Login {
  login(username: "${username}", password: "${password}") {
    accessToken
  }
}

${IDE_SEARCH.document}
`;

let page: Promise<PreparedResponse> | undefined;

/** The page, rendered once per process (the options are constants, so every server shares it). */
export function explorerPage(): Promise<PreparedResponse> {
  page ??= renderPage().catch((error) => {
    page = undefined; // let the next request try again rather than remember a failure
    throw error;
  });
  return page;
}

async function renderPage(): Promise<PreparedResponse> {
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
  return prepareResponse(html, {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": contentSecurityPolicy(html),
    "cache-control": REVALIDATE,
  });
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
  const scripts = inlineScripts(html).map(cspHash);
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

async function sendExplorer(request: FastifyRequest, reply: FastifyReply) {
  return sendPrepared(request, reply, await explorerPage());
}

/** To the IDE, with the query string kept (GraphiQL reads ?query=, ?variables=, ...). */
function toExplorer(request: FastifyRequest, reply: FastifyReply) {
  const query = request.url.indexOf("?");
  return reply.redirect(EXPLORER_PATH + (query < 0 ? "" : request.url.slice(query)), 302);
}

// Encapsulated: it only adds routes.
export const explorerPlugin = fp(
  async (app: FastifyInstance) => {
    app.get(EXPLORER_PATH, sendExplorer);
    for (const alias of EXPLORER_ALIASES) app.get(alias, toExplorer);
  },
  { name: "explorer", fastify: "5.x", encapsulate: true },
);
