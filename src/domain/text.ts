// Text the databases can keep exactly as sent. PostgreSQL refuses the NUL character in text, and
// an unpaired UTF-16 surrogate has no UTF-8 form at all: such values would fail deep in the
// driver (a 500) or come back changed. They are refused up front, naming the field, so every
// stored value reads back byte for byte. Stored text is otherwise kept as sent: it is checked on
// its trimmed form (a title of spaces is empty) but stored untrimmed.
import { z } from "zod";
import { badInput } from "../contract/errors.ts";

/** A lone high surrogate (not followed by a low one) or a lone low surrogate (not after a high one). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `value` cannot be stored as it is, or null when it can. */
export function unstorableReason(value: string): string | null {
  if (value.includes("\u0000")) return "must not contain the NUL character (U+0000)";
  if (LONE_SURROGATE.test(value))
    return "must be valid Unicode (it holds an unpaired surrogate, which has no UTF-8 form)";
  return null;
}

export const isStorable = (value: string) => unstorableReason(value) === null;

/** Refines a zod string schema: refused with a message naming `field` unless storable as sent. */
export function storable<S extends z.ZodType<string>>(schema: S, field: string) {
  return schema.superRefine((value, ctx) => {
    const reason = unstorableReason(value);
    if (reason) ctx.addIssue({ code: "custom", message: `${field} ${reason}` });
  });
}

/**
 * Stored text that must not be blank: at most `max` characters as sent, not empty once trimmed,
 * storable. The value is kept as sent (spaces, marks and all).
 */
export function requiredText(
  field: string,
  max: number,
  requiredMessage = `${field} must be text of 1 to ${max} characters`,
) {
  return storable(
    z
      .string({ error: requiredMessage })
      .max(max, `${field} must have at most ${max} characters`)
      .refine((v) => v.trim().length > 0, `${field} must not be empty`),
    field,
  );
}

/** Stored text that may be empty: at most `max` characters as sent, storable, kept as sent. */
export const optionalText = (field: string, max: number) =>
  storable(z.string().max(max, `${field} must have at most ${max} characters`), field);

/** Our ids are short (cuids); the router refuses longer path segments too. */
export const MAX_ID_LENGTH = 100;

/**
 * Why `value` cannot be the id of any row, or null. Ids are not refused for their shape (an
 * unknown one is NOT_FOUND), only when no row could ever hold them: an over-long one (PostgreSQL
 * cannot even index it) or one the database could not compare.
 */
export function idProblem(value: string): string | null {
  if (value.length > MAX_ID_LENGTH) return `must have at most ${MAX_ID_LENGTH} characters`;
  return unstorableReason(value);
}

/** Throws BAD_USER_INPUT naming `field` when `value` cannot be an id. */
export function checkId(value: string, field: string): string {
  const problem = idProblem(value);
  if (problem) throw badInput(`${field} ${problem}`, { field });
  return value;
}

/** An id field of an input object, checked as `checkId` does. */
export const recordId = (field: string) =>
  z
    .string()
    .min(1, `${field} must not be empty`)
    .superRefine((value, ctx) => {
      const problem = idProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: `${field} ${problem}` });
    });
