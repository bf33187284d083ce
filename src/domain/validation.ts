// Turns a zod schema failure into one BAD_USER_INPUT error that names every field to fix.
import type { z } from "zod";
import { badInput } from "../contract/errors.ts";

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => ({ field: i.path.join("."), message: i.message }));
  throw badInput(
    problems.map((p) => (p.message.includes(p.field) || !p.field ? p.message : `${p.field}: ${p.message}`)).join("; "),
    {
      problems,
    },
  );
}
