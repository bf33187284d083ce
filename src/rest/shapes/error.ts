// The error body every REST answer uses: {"error": {"code", "message", "details"?}}.
import * as s from "../openapi/json-schema.ts";

export const errorSchema = s.answer({
  error: {
    type: "object",
    properties: {
      code: s.string({ description: "UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, BAD_USER_INPUT, CONFLICT, ..." }),
      message: s.string({ description: "what went wrong and how to fix it" }),
      details: { type: "object" },
    },
    required: ["code", "message"],
  },
});
