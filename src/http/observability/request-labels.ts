// What a request's answer was about, for its metrics and log labels, as the layers that answered
// it tell: the GraphQL operation a /graphql request ran (the name the document really holds, as
// the GraphQL layer resolved it, never the client's operationName taken on trust) and the error
// code an error answer carried. The HTTP layer only reads them: it knows nothing of GraphQL or REST.
import type { FastifyReply, FastifyRequest } from "fastify";

/** A request's slot for its operation name: the GraphQL layer fills it in once it resolved the operation. */
export type OperationSlot = { name?: string };

const operations = new WeakMap<FastifyRequest, OperationSlot>();
const errorCodes = new WeakMap<FastifyReply, string>();

export function operationSlot(request: FastifyRequest): OperationSlot {
  let slot = operations.get(request);
  if (!slot) operations.set(request, (slot = {}));
  return slot;
}

/**
 * The operation a /graphql request ran: "" for an unnamed one, undefined when none was resolved
 * (not /graphql, a document that did not parse, an operationName it does not hold).
 */
export const resolvedOperationName = (request: FastifyRequest): string | undefined => operations.get(request)?.name;

/** Called by whatever sends an error body: the code it carries. */
export function answeredWithError(reply: FastifyReply, code: string): void {
  errorCodes.set(reply, code);
}

/** The code of the error body this reply carried, if one was recorded. */
export const answeredErrorCode = (reply: FastifyReply): string | undefined => errorCodes.get(reply);
