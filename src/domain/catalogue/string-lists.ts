// String lists (categories, cuisines, units, ...) are stored as tag rows: one row per element,
// with its position (to keep the order) and a lower-cased key (to search case-insensitively).
import { z } from "zod";
import { storable } from "../text.ts";

/** A list's bounds as the schema describes them to clients (part of the contract, not a setting). */
export const MAX_LIST_ITEMS = 50;
export const MAX_LIST_ITEM_LENGTH = 200;

/** A list of 0..50 non-empty strings of at most 200 characters; blanks trimmed, repeats dropped. */
export const stringList = z
  .array(
    storable(
      z
        .string()
        .trim()
        .min(1, "list items must not be empty")
        .max(MAX_LIST_ITEM_LENGTH, `list items must have at most ${MAX_LIST_ITEM_LENGTH} characters`),
      "list items",
    ),
  )
  .max(MAX_LIST_ITEMS, `lists hold at most ${MAX_LIST_ITEMS} items`)
  .transform(withoutRepeats);

/** Drops values equal to an earlier one but for case; the first spelling is kept. */
function withoutRepeats(items: string[]): string[] {
  const seen = new Set<string>();
  return items.filter((v) => !seen.has(searchKey(v)) && seen.add(searchKey(v)));
}

/** The form a value is matched by in searches: trimmed and lower-cased (Unicode-aware, same on both databases). */
export const searchKey = (value: string) => value.trim().toLowerCase();

export function tagRows<K extends string>(kind: K, values: string[]) {
  return values.map((value, position) => ({ kind, position, value, valueKey: searchKey(value) }));
}

/** Groups tag rows (already ordered by position) into lists by kind. */
export function listsByKind<K extends string>(rows: { kind: K; value: string }[]): Partial<Record<K, string[]>> {
  const lists: Partial<Record<K, string[]>> = {};
  for (const row of rows) (lists[row.kind] ??= []).push(row.value);
  return lists;
}

/** Tag rows for the lists an input gives (field -> kind), and the kinds whose rows they replace. */
export function listRows<F extends string, K extends string>(
  kindsByField: Record<F, K>,
  input: Partial<Record<NoInfer<F>, string[] | undefined>>,
) {
  const kinds: K[] = [];
  const rows: ReturnType<typeof tagRows<K>> = [];
  for (const [field, kind] of Object.entries(kindsByField) as [F, K][]) {
    const values = input[field];
    if (values === undefined) continue;
    kinds.push(kind);
    rows.push(...tagRows(kind, values));
  }
  return { kinds, rows };
}
