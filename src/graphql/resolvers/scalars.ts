import { GraphQLError, GraphQLScalarType, Kind } from "graphql";

function toDate(value: unknown): Date {
  const date = value instanceof Date ? value : typeof value === "string" || typeof value === "number" ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) {
    throw new GraphQLError("DateTime must be an ISO-8601 string, e.g. 2026-11-22T10:15:00Z", { extensions: { code: "BAD_USER_INPUT" } });
  }
  return date;
}

export const DateTime = new GraphQLScalarType({
  name: "DateTime",
  serialize: (value) => toDate(value).toISOString(),
  parseValue: toDate,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError("DateTime must be a string", { extensions: { code: "BAD_USER_INPUT" } });
    return toDate(ast.value);
  },
});
