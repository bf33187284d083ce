// Once a request's answer is sent, its context lets go of the rows its loaders read and Apollo's
// response lets go of the result, so that whatever still points at the request holds only a
// small shell.
//
// Why: Apollo Server runs our executor only in gateway mode (apollo-executor.ts), and for each
// operation it built an object whose getter and setter closed over the request's whole state
// (context, response). Such an object literal gets a hidden class of its own, allocated in the
// old generation, which the young-generation collector treats as live: each request's objects
// survived the young collections that followed it and were promoted, to be freed only by a full
// collection. scripts/patches moves those accessors onto a prototype (the root cause, found
// later); this file stays as the bound on what any other such link can keep
// (docs/performance.md "Latency at a fixed rate"; test/operability/request-lifetime.test.ts).
import type { ApolloServerPlugin, GraphQLResponse } from "@apollo/server";
import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import type { Context } from "../data/context.ts";

const CONTEXT = Symbol("context released after the answer");
const RESPONSE = Symbol("Apollo response released after the answer");

type Releasable = Context & { [RESPONSE]?: GraphQLResponse };
type Holder = FastifyRequest & { [CONTEXT]?: Releasable };

/** The context built for `request`: released once its answer is sent. */
export function releaseAfterAnswer(request: FastifyRequest, context: Context) {
  (request as Holder)[CONTEXT] = context;
}

/** Apollo's response to an operation: its body (the result) is let go of with the context. */
export const releaseResultPlugin: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async willSendResponse({ contextValue, response }) {
        (contextValue as Releasable)[RESPONSE] = response;
      },
    };
  },
};

function release(context: Releasable) {
  context.dropLoaded();
  const response = context[RESPONSE];
  if (response) (response as { body?: GraphQLResponse["body"] }).body = undefined;
  context[RESPONSE] = undefined;
}

async function releaseAnswered(app: FastifyInstance) {
  // Plain data on the request and a callback-style hook: a closure stored on the request would
  // itself be the kind of link this file removes.
  app.addHook("onResponse", (request, _reply, done) => {
    const context = (request as Holder)[CONTEXT];
    if (context) {
      (request as Holder)[CONTEXT] = undefined;
      release(context);
    }
    done();
  });
}

// Global: /graphql and the REST routes both build contexts.
export const releasePlugin = fp(releaseAnswered, { name: "release", fastify: "5.x" });
