// A per-request batch loader, declared once beside the fields that use it. The definition object
// itself is the key a request's loaders are kept under, so two definitions can never share a
// loader by sharing a name, and the keys and values a loader gives are the ones its batch declares.
import type { Context } from "./context.ts";

export type LoaderDefinition<K, V> = {
  /** For people reading traces and errors; not a key. */
  readonly name: string;
  /** Answers one value (or Error) per key, in the keys' order, as DataLoader expects. */
  readonly batch: (ctx: Context, keys: readonly K[]) => Promise<(V | Error)[]>;
};

export const defineLoader = <K, V>(name: string, batch: LoaderDefinition<K, V>["batch"]): LoaderDefinition<K, V> =>
  Object.freeze({ name, batch });
