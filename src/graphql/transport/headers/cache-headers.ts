// The Cache-Control of every answer Apollo sends for /graphql: a clean GET query's comes from the
// runner (its document's @cacheControl hints and whether a token was sent: cache-control.ts);
// everything else (POST, errors, refusals, partial data) is no-store. The HTTP layer
// (src/http/answers/http-caching.ts) then adds the ETag and answers If-None-Match.
import type { ApolloServerPlugin } from "@apollo/server";
import type { Context } from "../../data/context.ts";
import type { OperationRunner } from "../../execution/operation.ts";
import { NO_STORE } from "../../policy/cache-control.ts";

export const cacheHeadersPlugin = (runner: OperationRunner): ApolloServerPlugin<Context> => ({
  async requestDidStart() {
    return {
      async willSendResponse({ request, response, document, operationName, contextValue }) {
        const { body, http } = response;
        const clean =
          request.http?.method === "GET" &&
          document !== undefined &&
          body.kind === "single" &&
          !body.singleResult.errors?.length &&
          (http.status ?? 200) === 200;
        http.headers.set(
          "cache-control",
          clean ? runner.cacheControl(document, operationName, contextValue) : NO_STORE,
        );
      },
    };
  },
});
