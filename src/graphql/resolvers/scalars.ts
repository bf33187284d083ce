// Custom scalars: DateTime (ISO-8601) and Time (HH:MM, 24-hour).
import { GraphQLError, GraphQLScalarType, Kind } from "graphql";

const invalid = (message: string) => new GraphQLError(message, { extensions: { code: "BAD_USER_INPUT" } });

/** Longer than any ISO-8601 instant ("+275760-09-13T00:00:00.000+00:00" is 32): refused unread. */
const MAX_DATE_TEXT = 40;
/** "08:30" with room for spaces around it; a longer string is not a time and is refused unread. */
const MAX_TIME_TEXT = 16;

function toDate(value: unknown): Date {
  if (typeof value === "string" && value.length > MAX_DATE_TEXT)
    throw invalid(`DateTime must be an ISO-8601 string of at most ${MAX_DATE_TEXT} characters`);
  const date =
    value instanceof Date ? value : typeof value === "string" || typeof value === "number" ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime()))
    throw invalid("DateTime must be an ISO-8601 string, e.g. 2026-11-22T10:15:00Z");
  return date;
}

export const DateTime = new GraphQLScalarType({
  name: "DateTime",
  serialize: (value) => toDate(value).toISOString(),
  parseValue: toDate,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw invalid("DateTime must be a string");
    return toDate(ast.value);
  },
});

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** "8:30" is accepted and stored as "08:30"; anything that is not a time of day is refused. */
export function parseTime(value: unknown): string {
  if (typeof value === "string" && value.length <= MAX_TIME_TEXT) {
    const padded = /^\d:\d\d$/.test(value.trim()) ? `0${value.trim()}` : value.trim();
    if (TIME.test(padded)) return padded;
  }
  throw invalid(`Time must be HH:MM on a 24-hour clock (00:00 to 23:59), got ${JSON.stringify(value)?.slice(0, 40)}`);
}

export const Time = new GraphQLScalarType({
  name: "Time",
  serialize: (value) => parseTime(value),
  parseValue: parseTime,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw invalid('Time must be a string such as "08:30"');
    return parseTime(ast.value);
  },
});
