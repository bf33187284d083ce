// Hands Apollo Server the runner's execution step (operation.ts: compiled once it repeats, then the
// response ceiling) in place of graphql-js's execute.
// Apollo Server 4+ takes a custom executor only through its gateway interface: a "gateway" whose
// schema never changes and whose executor runs each operation after Apollo has parsed, validated
// and run its plugins' hooks, and before it formats the errors. Nothing else about Apollo changes.
import type { GatewayInterface } from "@apollo/server-gateway-interface";
import { printSchema } from "graphql";
import type { Context } from "../data/context.ts";
import type { OperationRunner } from "./operation.ts";
import { ranDirectly } from "../transport/direct-answer.ts";

export function executorGateway(runner: OperationRunner): GatewayInterface {
  const { schema } = runner;
  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => {};
    },
    async load() {
      return {
        // The operation name the client sent (Apollo's own `operationName` is the one it resolved,
        // null when the name matches no operation, which graphql-js must be left to refuse).
        executor: async ({ document, request, context }) => {
          // Already run by the direct answer (transport/direct-answer.ts), which handed the request over for Apollo to answer.
          const ran = ranDirectly(context as Context);
          if (ran && "result" in ran) return ran.result;
          if (ran && "executeError" in ran) throw ran.executeError;
          return runner.execute(document, request.operationName, request.variables, context as Context);
        },
      };
    },
    async stop() {},
  };
}
