// Small helpers the route table's `body` functions share.
import { notFound } from "../contract/errors.ts";

/** A get that finds nothing is a 404, as for any other missing resource. */
export function found<T>(value: T | null | undefined, what: string, id: unknown): T {
  if (value === null || value === undefined) throw notFound(what, String(id));
  return value;
}
