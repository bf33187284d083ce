// What a browser gets at GET /graphql (Apollo shows a "landing page" to requests that prefer HTML).
// Apollo's default, Sandbox, loads from a CDN and fails offline; this replaces it with a small page
// that sends the browser to the self-hosted explorer, keeping ?query=... so shared links still work.
// The explorer itself is served by src/http/pages/explorer.ts, compressed and cacheable, which Apollo's
// landing page path cannot do.
import type { ApolloServerPlugin } from "@apollo/server";
import { EXPLORER_PATH } from "../../http/pages/explorer.ts";

const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>GraphQL explorer</title>
<script>location.replace(${JSON.stringify(EXPLORER_PATH)} + location.search + location.hash);</script>
<noscript><meta http-equiv="refresh" content="0; url=${EXPLORER_PATH}"></noscript>
</head>
<body>
<p>This is the GraphQL endpoint: send operations with POST. The GraphQL explorer is at <a href="${EXPLORER_PATH}">${EXPLORER_PATH}</a>.</p>
</body>
</html>
`;

export function explorerLandingPage(): ApolloServerPlugin<any> {
  return {
    async serverWillStart() {
      return {
        async renderLandingPage() {
          return { html };
        },
      };
    },
  };
}
