// Batch-loading helpers shared by resolver files.

/** Orders rows fetched for `keys` back into key order (null where none), as DataLoader expects. */
export function byKey<K, R>(keys: readonly K[], rows: R[], keyOf: (row: R) => K): (R | null)[] {
  const map = new Map<K, R>();
  for (const row of rows) map.set(keyOf(row), row);
  return keys.map((k) => map.get(k) ?? null);
}

/** Groups rows fetched for `keys` into one array per key, in key order. */
export function groupedByKey<K, R>(keys: readonly K[], rows: R[], keyOf: (row: R) => K): R[][] {
  const map = new Map<K, R[]>();
  for (const row of rows) {
    const list = map.get(keyOf(row));
    if (list) list.push(row);
    else map.set(keyOf(row), [row]);
  }
  return keys.map((k) => map.get(k) ?? []);
}
