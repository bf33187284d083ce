// The admission path (src/graphql/execution/operation.ts) as the server builds it, for tests that check
// documents without a server (the REST route table's, at start-up).
import { loadConfig } from "../../src/config.ts";
import { compilingExecutor } from "../../src/graphql/execution/compiled-execution.ts";
import { operationLimits } from "../../src/graphql/policy/limits.ts";
import { operationRunner } from "../../src/graphql/execution/operation.ts";
import { buildSchema } from "../../src/graphql/schema.ts";

export function testRunner(schema = buildSchema(), env: Record<string, string> = {}) {
  return operationRunner(
    schema,
    operationLimits(loadConfig(env)),
    compilingExecutor(schema, { after: 0, perMinute: 1 }),
  );
}
