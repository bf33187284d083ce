// What `npm start` says once it listens: where the start page, the API, the GraphQL IDE, the REST
// reference and the OpenAPI document are, and how to get a token. A friendly block in a terminal;
// one JSON log line each otherwise (log collectors get them as data).
import type { FastifyBaseLogger } from "fastify";
import { keepTokenCommand, registerCommand, tokenCommand } from "../contract/examples.ts";
import { OPENAPI_PATH } from "../contract/paths.ts";
import { EXPLORER_PATH } from "./pages/explorer.ts";
import { REST_REFERENCE_PATH } from "./pages/rest-reference.ts";

export type BannerFacts = {
  /** The address the server listens on, e.g. http://127.0.0.1:4000 */
  address: string;
  /** No account exists yet: point at the demo data. */
  emptyDatabase: boolean;
  /** The IDE is served (GRAPHQL_EXPLORER). */
  explorer: boolean;
  /** Which Node runs the service, and why that one (runtime.ts). */
  runtime: string;
};

/** The block printed to a terminal. */
export function bannerText({ address, emptyDatabase, explorer, runtime }: BannerFacts): string {
  return [
    "",
    `  Restaurants & groceries gateway listening on ${address}`,
    "",
    `  Start page    ${address}/  (links to all of these)`,
    `  GraphQL API   POST ${address}/graphql`,
    ...(explorer ? [`  GraphQL IDE   ${address}${EXPLORER_PATH}  (or open ${address}/graphql in a browser)`] : []),
    `  REST docs     ${address}${REST_REFERENCE_PATH}  (the legacy REST interface, to read and try)`,
    `  OpenAPI       ${address}${OPENAPI_PATH}`,
    `  Runtime       ${runtime}`,
    "",
    "  Get a token: register once (the answer carries an access_token), then sign in whenever you",
    "  need a new one, keeping it in $TOKEN for the commands that follow:",
    `    ${registerCommand(address)}`,
    `    ${keepTokenCommand(address)}`,
    `    curl -s ${address}/graphql -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"query":"{ me { username } }"}'`,
    ...(emptyDatabase
      ? ["", "  The database is empty: `npm run seed` loads demo data (a demo user and an admin)."]
      : []),
    "",
  ].join("\n");
}

/** The same facts as log lines, for non-terminals. */
export function logBanner(log: FastifyBaseLogger, { address, emptyDatabase, explorer, runtime }: BannerFacts) {
  log.info({ url: `${address}/graphql` }, `GraphQL API: POST ${address}/graphql`);
  if (explorer)
    log.info(
      { url: `${address}${EXPLORER_PATH}` },
      `GraphQL IDE: ${address}${EXPLORER_PATH} (or open ${address}/graphql in a browser)`,
    );
  log.info({ url: `${address}${REST_REFERENCE_PATH}` }, `REST reference: ${address}${REST_REFERENCE_PATH}`);
  log.info({ url: `${address}${OPENAPI_PATH}` }, `OpenAPI document of the REST interface: ${address}${OPENAPI_PATH}`);
  log.info({ node: process.version }, `runtime: ${runtime}`);
  log.info(`get a token: ${registerCommand(address)} ; later: ${tokenCommand(address)}`);
  log.info(`keep a token in $TOKEN: ${keepTokenCommand(address)}`);
  if (emptyDatabase) log.info("the database is empty: `npm run seed` loads demo data (a demo user and an admin)");
}
