// The HTTP status of a GraphQL request error over /graphql, by the media type the client reads
// (GraphQL over HTTP). A client that accepts application/graphql-response+json (Apollo Client,
// urql and graphql-request all ask for it first) gets the 4xx that media type defines when its
// document does not parse, does not validate, names no operation it holds, or its variables do not
// coerce: Apollo's 400 stands. A client that takes application/json only (or sends no Accept
// header, which the spec reads as application/json) reads errors from the body, as GraphQL over
// HTTP had it before that media type: it SHOULD get 200 with `errors` for those same failures.
// Nothing else changes: a request that is not well-formed (no query, a body that is not JSON),
// limits that refuse work rather than the document (cost, the response ceiling: 400; 429 with
// Retry-After), 405, 413, 415, 503/507, and the REST shim, which answers on its own.
import type { ApolloServerPlugin } from "@apollo/server";
import { type GraphQLError, Kind } from "graphql";
import Negotiator from "negotiator";

/** Codes of the errors Apollo raises for a document that does not parse or validate, or holds no such operation. */
const DOCUMENT_ERRORS = new Set(["GRAPHQL_PARSE_FAILED", "GRAPHQL_VALIDATION_FAILED", "OPERATION_RESOLUTION_FAILURE"]);

/** A variable that does not coerce: graphql-js points at its definition (Apollo tells them apart the same way). */
const uncoercedVariable = (error: GraphQLError) =>
  error.extensions?.code === "BAD_USER_INPUT" && error.nodes?.[0]?.kind === Kind.VARIABLE_DEFINITION;

const requestError = (error: GraphQLError) =>
  DOCUMENT_ERRORS.has(String(error.extensions?.code)) || uncoercedVariable(error);

// As Apollo Server names them when it picks the response's type (with the charset it answers in).
const APPLICATION_JSON = "application/json; charset=utf-8";
const GRAPHQL_RESPONSE_JSON = "application/graphql-response+json; charset=utf-8";

/** Whether the client reads application/json only: no Accept header, or one that excludes the GraphQL media type. */
export function readsJsonOnly(accept: string | undefined): boolean {
  if (!accept) return true;
  const negotiator = new Negotiator({ headers: { accept } });
  return (
    negotiator.mediaTypes([GRAPHQL_RESPONSE_JSON]).length === 0 &&
    negotiator.mediaTypes([APPLICATION_JSON]).length === 1
  );
}

export const requestErrorStatusPlugin: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async willSendResponse({ request, response, errors }) {
        if (response.http.status !== 400 || response.body.kind !== "single") return;
        // Failed before execution: no `data` at all (an execution error leaves data, even null).
        if (response.body.singleResult.data !== undefined || !errors?.length) return;
        if (!errors.every(requestError)) return;
        if (readsJsonOnly(request.http?.headers.get("accept"))) response.http.status = 200;
      },
    };
  },
};
