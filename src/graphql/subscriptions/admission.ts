// What every subscription transport checks before one starts, the same way HTTP checks an
// operation: the parser's token limit, the validation rules (depth, aliases, directives,
// @expensive max), exactly one subscription operation, and the cost limit with its variables.
import { getOperationAST, GraphQLError, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type ValidationRule } from "graphql";
import { checkOperationCost } from "../cost.ts";
import { expensiveFieldLimitRule } from "../directives/expensive.ts";
import type { OperationLimits } from "../limits.ts";

export type SubscriptionRequest = { query: string; operationName?: string | null; variables?: Record<string, unknown> | null };

export const refusal = (code: string, message: string) => [new GraphQLError(message, { extensions: { code } })];

/** `transport` names the carrier in messages ("WebSocket", "Server-Sent Events"). */
export function subscriptionAdmission(schema: GraphQLSchema, limits: OperationLimits, maxCost: number, transport: string) {
  const rules: ValidationRule[] = [...specifiedRules, ...limits.validationRules, expensiveFieldLimitRule(schema)];
  /** The parsed document, or the errors that refuse it. */
  return function checkedDocument(request: SubscriptionRequest): { document: DocumentNode } | readonly GraphQLError[] {
    if (typeof request.query !== "string" || request.query.length === 0) return refusal("BAD_USER_INPUT", "Send the subscription's text as `query`.");
    let document: DocumentNode;
    try {
      document = parse(request.query, limits.parseOptions);
    } catch (error) {
      return [error instanceof GraphQLError ? error : new GraphQLError("The operation could not be parsed.")];
    }
    const invalid = validate(schema, document, rules);
    if (invalid.length > 0) return invalid;
    const operation = getOperationAST(document, request.operationName);
    if (!operation) return refusal("BAD_USER_INPUT", "Name the operation to run (operationName): the document holds none or several.");
    if (operation.operation !== "subscription") {
      return refusal("BAD_USER_INPUT", `Only subscriptions run over ${transport}; send ${operation.operation === "query" ? "queries" : "mutations"} with POST /graphql.`);
    }
    try {
      checkOperationCost(schema, document, request.operationName ?? undefined, request.variables ?? undefined, maxCost);
    } catch (error) {
      return [error as GraphQLError];
    }
    return { document };
  };
}
