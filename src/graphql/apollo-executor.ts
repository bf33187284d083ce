// Hands Apollo Server our executor (compiled-execution.ts) in place of graphql-js's execute.
// Apollo Server 4+ takes a custom executor only through its gateway interface: a "gateway" whose
// schema never changes and whose executor runs each operation after Apollo has parsed, validated
// and run its plugins' hooks, and before it formats the errors. Nothing else about Apollo changes.
import type { GatewayInterface } from "@apollo/server-gateway-interface";
import { printSchema, type GraphQLSchema } from "graphql";
import type { Executor } from "./compiled-execution.ts";

export function executorGateway(schema: GraphQLSchema, executor: Executor): GatewayInterface {
  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => {};
    },
    async load() {
      return {
        // The operation name the client sent (Apollo's own `operationName` is the one it resolved,
        // null when the name matches no operation, which graphql-js must be left to refuse).
        executor: async ({ document, request, context }) =>
          executor({ document, operationName: request.operationName, variables: request.variables, context }),
      };
    },
    async stop() {},
  };
}
