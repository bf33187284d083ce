// Which operation of its document a /graphql request ran, as Apollo resolved it: a name the
// document really holds, never the client's operationName taken on trust (metrics use it).
import type { ApolloServerPlugin } from "@apollo/server";
import type { OperationDefinitionNode } from "graphql";
import type { FastifyRequest } from "fastify";
import { operationSlot, type OperationSlot } from "../../http/observability/request-labels.ts";

/** Apollo hands plugins a shallow copy of the context: the request's slot inside it survives that. */
const RESOLVED = Symbol("resolved operation");

/** Links a /graphql request to the context object Apollo will run it with. */
export function rememberContext(request: FastifyRequest, context: object) {
  Object.defineProperty(context, RESOLVED, { value: operationSlot(request), enumerable: true });
}

/** Records the operation picked to run with `context` (a context rememberContext linked to its request). */
export function recordOperation(context: object, operation: OperationDefinitionNode | null | undefined) {
  const resolved = (context as { [RESOLVED]?: OperationSlot })[RESOLVED];
  if (resolved) resolved.name = operation?.name?.value ?? "";
}

/** Records the operation once Apollo has parsed the document and picked the operation to run. */
export const operationNamePlugin: ApolloServerPlugin<any> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ contextValue, operation }) {
        recordOperation(contextValue, operation);
      },
    };
  },
};
