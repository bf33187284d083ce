// "Try again in n seconds" over /graphql: a RetryLaterError (RATE_LIMITED, SERVER_BUSY), thrown by
// a resolver or by a plugin before execution, answers with its code's HTTP status and Retry-After,
// as the REST shim's answer does. The domain error carries no status: it comes from the one
// table, src/contract/error-codes.ts.
import { HeaderMap, type ApolloServerPlugin } from "@apollo/server";
import { RetryLaterError } from "../../../contract/errors.ts";
import { statusForCode } from "../../../contract/error-codes.ts";
import type { Context } from "../../data/context.ts";

export function retryLaterPlugin(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        // Apollo reads each error's `extensions.http` (status, headers) right after this hook, when
        // it formats the errors; formatError (client-errors.ts) then drops it from what is sent.
        async didEncounterErrors({ errors }) {
          for (const error of errors) {
            const original = error.originalError;
            if (!(original instanceof RetryLaterError)) continue;
            const retryAfter = String(original.details.retryAfterSeconds);
            // Apollo iterates these headers (a HeaderMap); graphql-yoga's typing of the key wants a record.
            Object.assign(error.extensions, {
              http: { status: statusForCode(original.code), headers: new HeaderMap([["retry-after", retryAfter]]) },
            });
          }
        },
      };
    },
  };
}
