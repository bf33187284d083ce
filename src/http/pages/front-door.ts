// GET /: where a newcomer starts. A browser (Accept preferring text/html) gets a small page of
// the service's own: its name and version (package.json), links to the GraphQL IDE, the REST
// reference, the OpenAPI document and the health checks, and how to get a token. Any other
// client gets the same as a short JSON index. Both are made once at start-up and served from
// memory (prepared-response.ts); the page loads nothing, not even from this server.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import Negotiator from "negotiator";
import { EXPLORER_PATH } from "./explorer.ts";
import { HEALTH_PATH, READINESS_PATH } from "../health.ts";
import { EXAMPLE_ACCOUNT, keepTokenCommand, registerCommand } from "../../contract/examples.ts";
import { OPENAPI_PATH } from "../../contract/paths.ts";
import { packageManifest } from "../../package-manifest.mjs";
import {
  cspHash,
  prepareResponse,
  REVALIDATE,
  sendPrepared,
  type PreparedResponse,
} from "../answers/prepared-response.ts";
import { REST_REFERENCE_PATH } from "./rest-reference.ts";

export type FrontDoorOptions = {
  /** GRAPHQL_EXPLORER: the IDE is served, so the door links to it. Default true. */
  explorer?: boolean;
  /** The address shown in the token command until the page's script puts the browser's own in. Default http://127.0.0.1:4000. */
  address?: string;
};

const service = packageManifest;

/** The same links in the page and in the JSON, in the order shown. */
function links(explorer: boolean) {
  return {
    graphql: "/graphql",
    ...(explorer ? { graphqlIde: EXPLORER_PATH } : {}),
    restReference: REST_REFERENCE_PATH,
    openapi: OPENAPI_PATH,
    health: HEALTH_PATH,
    readiness: READINESS_PATH,
  };
}

function jsonIndex(explorer: boolean): string {
  const { username, password, firstName } = EXAMPLE_ACCOUNT;
  return JSON.stringify({
    name: service.name,
    version: service.version,
    description: service.description,
    links: links(explorer),
    token: {
      register: { method: "POST", path: "/users", json: { username, password, first_name: firstName } },
      signIn: { method: "POST", path: "/auth/token", form: { username, password } },
      send: "Authorization: Bearer <access_token>",
    },
  });
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

const STYLE = `
:root { color-scheme: light dark; font: 16px/1.5 system-ui, sans-serif; }
body { max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
h1 { margin-bottom: 0; } h1 small { font-size: 1rem; font-weight: normal; opacity: .7; }
li { margin: .4rem 0; }
pre { overflow-x: auto; padding: .75rem; border-radius: .4rem; background: rgba(127, 127, 127, .15); }
code { font: .9rem/1.4 ui-monospace, monospace; }
`;

// Puts the address the browser used into the command (behind a proxy, the listening one is not it).
const ORIGIN_SCRIPT = `for (const e of document.querySelectorAll("[data-origin]")) e.textContent = location.origin;`;

function htmlPage(explorer: boolean, address: string): string {
  const origin = "\u0000origin\u0000";
  const command = (text: string) => escapeHtml(text).replace(origin, `<span data-origin>${escapeHtml(address)}</span>`);
  const item = (href: string, title: string, what: string) => `<li><a href="${href}">${title}</a>: ${what}</li>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(service.name)} ${escapeHtml(service.version)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(service.name)} <small>${escapeHtml(service.version)}</small></h1>
<p>${escapeHtml(service.description)}.</p>
<ul>
${[
  explorer
    ? item(
        EXPLORER_PATH,
        "GraphQL IDE",
        "write and run queries, mutations and subscriptions (the API: <code>POST /graphql</code>)",
      )
    : `<li>GraphQL API: <code>POST /graphql</code></li>`,
  item(REST_REFERENCE_PATH, "REST reference", "every path of the legacy REST interface, with requests to try"),
  item(OPENAPI_PATH, OPENAPI_PATH, "the REST interface as an OpenAPI 3.1 document"),
  item(HEALTH_PATH, HEALTH_PATH, "the process answers") +
    "\n" +
    item(READINESS_PATH, READINESS_PATH, "the database, writes and uploads work"),
].join("\n")}
</ul>
<h2>Get a token</h2>
<pre><code>${command(registerCommand(origin))}</code></pre>
<p>Send the <code>access_token</code> it answers as <code>Authorization: Bearer &lt;access_token&gt;</code>${
    explorer ? " (in the IDE: its Headers pane)" : ""
  }. Sign in again for a new one, and keep it in <code>$TOKEN</code> for the commands that follow:</p>
<pre><code>${command(keepTokenCommand(origin))}</code></pre>
<script>${ORIGIN_SCRIPT}</script>
</body>
</html>
`;
}

type FrontDoor = { html: PreparedResponse; json: PreparedResponse };

function prepareFrontDoor(explorer: boolean, address: string): FrontDoor {
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src ${cspHash(ORIGIN_SCRIPT)}`,
    `style-src ${cspHash(STYLE)}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  return {
    html: prepareResponse(htmlPage(explorer, address), {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": contentSecurityPolicy,
      "cache-control": REVALIDATE,
    }),
    json: prepareResponse(jsonIndex(explorer), {
      "content-type": "application/json; charset=utf-8",
      "cache-control": REVALIDATE,
    }),
  };
}

const MEDIA_TYPES = ["application/json", "text/html"];

/** HTML only for a client that prefers it (a browser); JSON for every other, first when none is said. */
function prefersHtml(request: FastifyRequest): boolean {
  return new Negotiator(request).mediaType(MEDIA_TYPES) === "text/html";
}

async function frontDoor(
  app: FastifyInstance,
  { explorer = true, address = "http://127.0.0.1:4000" }: FrontDoorOptions,
) {
  const door = prepareFrontDoor(explorer, address);
  app.get("/", (request: FastifyRequest, reply: FastifyReply) => {
    reply.header("vary", "accept");
    return sendPrepared(request, reply, prefersHtml(request) ? door.html : door.json);
  });
}

// Encapsulated: it only adds a route.
export const frontDoorPlugin = fp(frontDoor, { name: "front-door", fastify: "5.x", encapsulate: true });
