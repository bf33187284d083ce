// A token sent where it can be read before the body (the Authorization header or the
// access_token query parameter) is checked before any of the body is read, on routes that need
// one: a made-up, expired or revoked token gets 401 at once, and the connection is closed (see
// body-rate.ts) instead of the server receiving, parsing or storing a body it will refuse.
// Tokens sent in the body itself can only be checked once it is read (bounded by the body
// limits, REQUEST_TIMEOUT and BODY_MIN_RATE).
//
// The answer is remembered for the request, so building its context costs no second look-up.
import type { FastifyReply, FastifyRequest } from "fastify";
import { signInRequired } from "../contract/errors.ts";
import type { Authentication } from "../domain/accounts/tokens.ts";
import { sendError } from "./answers/error-handling.ts";
import { tokenFromRequest } from "./token.ts";

export type Authenticate = (token: string | undefined) => Promise<Authentication>;

const checked = new WeakMap<FastifyRequest, { token: string; auth: Authentication }>();

/** The refusal's code and words, the same as every other transport's (contract/errors.ts). */
const refusal = (tokenSent: boolean, reason?: string) => {
  const { code, message } = signInRequired(tokenSent, reason);
  return { code, message };
};

/**
 * An onRequest hook for routes that need a valid token. With `required`, a request with no token
 * in the header or query string is refused too (where the body cannot carry one: /graphql uploads).
 */
export function tokenBeforeBody(authenticate: Authenticate, { required = false } = {}) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const token = tokenFromRequest(request, {});
    if (!token) {
      if (!required) return;
      return sendError(request, reply, 401, refusal(false));
    }
    const auth = await authenticate(token);
    if (auth.state !== "valid")
      return sendError(request, reply, 401, refusal(true, auth.state === "invalid" ? auth.reason : undefined));
    checked.set(request, { token, auth });
  };
}

/** The answer tokenBeforeBody got for this request's `token`, if it checked that token. */
export function checkedAuthentication(request: FastifyRequest, token: string | undefined): Authentication | undefined {
  const seen = checked.get(request);
  return seen && seen.token === token ? seen.auth : undefined;
}
