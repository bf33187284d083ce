// The REST reference at GET /docs: Swagger UI (swagger-ui-dist's prebuilt bundle, docs/architecture.md
// "Architecture" says why this one) rendering /openapi.json, with every asset served by this
// process: the page works with no internet access. The bundle and its stylesheet are read once per
// process, named by their content hash (cached by browsers for a year: a release brings new
// names), compressed once (ahead by `npm start`, else on first use) and kept in memory
// (prepared-response.ts); the page itself is revalidated with its ETag. The document lists each REST_PREFIXES prefix as a server, so the
// page's "Servers" menu sends its "Try it out" requests under the prefix chosen.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { OPENAPI_PATH } from "../../contract/paths.ts";
import {
  contentHash,
  cspHash,
  IMMUTABLE,
  precompress,
  prepareResponse,
  REVALIDATE,
  sendPrepared,
  type PreparedResponse,
} from "../answers/prepared-response.ts";

export const REST_REFERENCE_PATH = "/docs";

const swaggerUiDist = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/** A file of swagger-ui-dist, without the source-map comment (the maps are not served). */
function distFile(name: string): string {
  return readFileSync(path.join(swaggerUiDist, name), "utf8").replace(/\/\*# sourceMappingURL=[^*]*\*\/\s*$/, "");
}

// Swagger UI's settings. validatorUrl: null, or the page would load a badge from
// validator.swagger.io; queryConfigEnabled stays off, so ?url=... cannot point the page at another
// document; authorizations (the token) live in the page's memory only.
const START = `SwaggerUIBundle(${JSON.stringify({
  url: OPENAPI_PATH,
  dom_id: "#swagger-ui",
  validatorUrl: null,
  queryConfigEnabled: false,
  persistAuthorization: false,
  deepLinking: true,
  displayRequestDuration: true,
})});`;

type RestReference = { page: PreparedResponse; assets: Map<string, PreparedResponse> };

let reference: RestReference | undefined;

/** The page and its assets, made once per process (they depend on no setting). */
export function restReference(): RestReference {
  reference ??= makeReference();
  return reference;
}

/**
 * Compresses the page and its assets now, not for the first visitor (brotli takes ~1 s of CPU on
 * the 1.7 MB script). `npm start` calls it once listening; test servers leave it to first use.
 */
export async function precompressRestReference(): Promise<void> {
  const { page, assets } = restReference();
  for (const prepared of [page, ...assets.values()]) await precompress(prepared); // one at a time
}

function makeReference(): RestReference {
  const asset = (name: string, type: string) => {
    const body = distFile(name);
    const dot = name.lastIndexOf(".");
    const served = `${REST_REFERENCE_PATH}/${name.slice(0, dot)}.${contentHash(body)}${name.slice(dot)}`;
    return [
      served,
      prepareResponse(body, { "content-type": `${type}; charset=utf-8`, "cache-control": IMMUTABLE }),
    ] as const;
  };
  const [script, scriptAsset] = asset("swagger-ui-bundle.js", "text/javascript");
  const [stylesheet, stylesheetAsset] = asset("swagger-ui.css", "text/css");
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>REST reference</title>
<link rel="stylesheet" href="${stylesheet}">
</head>
<body>
<div id="swagger-ui"><noscript>This page needs JavaScript; the document it shows is <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript></div>
<script src="${script}"></script>
<script>${START}</script>
</body>
</html>
`;
  // Only this server: its scripts (the bundle, and the starter by hash), its stylesheet (no inline
  // styles: Swagger UI sets them through the DOM, which CSP allows), images inlined as data: URLs
  // in the stylesheet, and requests to the document and the REST paths on the same origin.
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src 'self' ${cspHash(START)}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  const page = prepareResponse(html, {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": contentSecurityPolicy,
    "cache-control": REVALIDATE,
  });
  return {
    page,
    assets: new Map([
      [script, scriptAsset],
      [stylesheet, stylesheetAsset],
    ]),
  };
}

// Encapsulated: it only adds routes. The files are read here, at start-up.
export const restReferencePlugin = fp(
  async (app: FastifyInstance) => {
    const { page, assets } = restReference();
    app.get(REST_REFERENCE_PATH, (request, reply) => sendPrepared(request, reply, page));
    for (const [served, asset] of assets) app.get(served, (request, reply) => sendPrepared(request, reply, asset));
  },
  { name: "rest-reference", fastify: "5.x", encapsulate: true },
);
