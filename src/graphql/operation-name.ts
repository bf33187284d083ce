// Which operation of its document a /graphql request ran, as Apollo resolved it: a name the
// document really holds, never the client's operationName taken on trust (metrics use it).
import type { ApolloServerPlugin } from "@apollo/server";
import type { FastifyRequest } from "fastify";

/** Apollo hands plugins a shallow copy of the context: a shared record inside it survives that. */
const RESOLVED = Symbol("resolved operation");
type Resolved = { name?: string };

const byRequest = new WeakMap<FastifyRequest, Resolved>();

/** Links a /graphql request to the context object Apollo will run it with. */
export function rememberContext(request: FastifyRequest, context: object) {
  const resolved: Resolved = {};
  byRequest.set(request, resolved);
  Object.defineProperty(context, RESOLVED, { value: resolved, enumerable: true });
}

/** Records the operation once Apollo has parsed the document and picked the operation to run. */
export const operationNamePlugin: ApolloServerPlugin<any> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ contextValue, operation }) {
        const resolved = (contextValue as { [RESOLVED]?: Resolved })[RESOLVED];
        if (resolved) resolved.name = operation?.name?.value ?? "";
      },
    };
  },
};

/**
 * The name of the operation this request ran: "" for an unnamed one, undefined when none was
 * resolved (not /graphql, a document that did not parse, an operationName it does not hold).
 */
export const resolvedOperationName = (request: FastifyRequest): string | undefined => byRequest.get(request)?.name;
