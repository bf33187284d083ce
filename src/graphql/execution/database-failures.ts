// Database failures that are the server's condition (storage full, files not writable, database
// unreachable) answer STORAGE_FULL (507) or SERVICE_UNAVAILABLE (503), over /graphql and the REST
// shim alike, never INTERNAL_SERVER_ERROR.
import type { ApolloServerPlugin } from "@apollo/server";
import { MapperKind, mapSchema } from "@graphql-tools/utils";
import { defaultFieldResolver, GraphQLError, type GraphQLFieldResolver, type GraphQLSchema } from "graphql";
import { databaseUnavailable } from "../../domain/prisma-errors.ts";
import { statusForCode } from "../../contract/error-codes.ts";
import { DomainError } from "../../contract/errors.ts";
import type { Context } from "../data/context.ts";

const AVAILABILITY_CODES = new Set(["SERVICE_UNAVAILABLE", "STORAGE_FULL"]);

const ROOT_TYPES = new Set(["Query", "Mutation", "Subscription"]);

/**
 * Root fields answer a database failure as STORAGE_FULL or SERVICE_UNAVAILABLE. Done here, with
 * the request's database at hand, because when a COMMIT fails Prisma reports only "transaction
 * already closed": the driver's record of the last failure (write-health.ts) tells why. Failures
 * elsewhere (nested fields) are recognised from the error alone (src/graphql/execution/client-errors.ts).
 */
export function answerDatabaseFailures(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, _name, typeName) => {
      if (!ROOT_TYPES.has(typeName)) return field;
      const answered =
        (run: GraphQLFieldResolver<unknown, Context>): GraphQLFieldResolver<unknown, Context> =>
        async (source, args, ctx, info) => {
          try {
            return await run(source, args, ctx, info);
          } catch (error) {
            throw databaseUnavailable(error, ctx.db.writeHealth.failure?.kind) ?? error;
          }
        };
      field.resolve = answered(field.resolve ?? defaultFieldResolver);
      // A subscription's start (its ownership check reads the database) answers the same way.
      if (field.subscribe) field.subscribe = answered(field.subscribe);
      return field;
    },
  });
}

/**
 * For the context factory: a database failure while reading the token becomes a 503/507 answer,
 * as does the identity provider's keys being out of reach (a DomainError saying so).
 */
export function contextFailure(error: unknown): unknown {
  const down = error instanceof DomainError ? error : databaseUnavailable(error);
  if (!down) return error;
  return new GraphQLError(down.message, {
    extensions: { code: down.code, http: { status: statusForCode(down.code) } },
  });
}

/**
 * An operation whose root fields all came back empty because of a database failure answers 503
 * or 507, not 200 (a balancer or a client's retry logic reads the status, not the body).
 */
export function databaseFailureStatusPlugin(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== "single") return;
          const { data, errors } = response.body.singleResult;
          if (!errors?.length || (data != null && Object.values(data).some((value) => value !== null))) return;
          const code = errors
            .map((e) => e.extensions?.code)
            .find((c) => typeof c === "string" && AVAILABILITY_CODES.has(c));
          if (typeof code === "string") response.http.status = statusForCode(code);
        },
      };
    },
  };
}
