// What the Relay tests share: relay-compiler run over test/relay/app into a temporary folder (its
// artifacts loaded by name), and relay-runtime's store driven as a mounted screen drives it.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// relay-runtime ships no TypeScript types (DefinitelyTyped's stop at 20): the few calls made here are typed by use.
export const relay = createRequire(import.meta.url)("relay-runtime");

/**
 * relay-compiler over test/relay/app with `schema` (schema.graphql by default); its artifacts
 * (TypeScript, ES modules) go to `dir`/artifacts. `persistFile`: the operations are persisted
 * there (id -> text) and the artifacts hold their ids instead of their texts.
 */
export function compileRelayApp(dir: string, { schema = path.join(ROOT, "schema.graphql"), persistFile = "" } = {}) {
  const config = path.join(dir, "relay.config.json");
  mkdirSync(path.join(dir, "artifacts")); // the compiler refuses an artifact folder that does not exist
  if (persistFile) writeFileSync(persistFile, "{}");
  writeFileSync(
    config,
    JSON.stringify({
      src: path.join(ROOT, "test/relay/app"),
      schema,
      language: "typescript",
      eagerEsModules: true,
      artifactDirectory: path.join(dir, "artifacts"),
      ...(persistFile && { persistConfig: { file: persistFile, algorithm: "SHA256" } }),
    }),
  );
  return execFileSync(path.join(ROOT, "node_modules/.bin/relay-compiler"), [config, "--output", "quiet-with-errors"], {
    encoding: "utf8",
    stdio: "pipe",
  });
}

/** What relay-compiler wrote in `dir`, by artifact name (RestaurantScreenQuery, RestaurantScreen_comments, ...). */
export async function relayArtifacts(dir: string): Promise<Record<string, any>> {
  const artifacts: Record<string, any> = {};
  for (const file of readdirSync(path.join(dir, "artifacts"))) {
    const module = await import(pathToFileURL(path.join(dir, "artifacts", file)).href);
    artifacts[file.replace(/\.graphql\.ts$/, "")] = module.default;
  }
  return artifacts;
}

/** Runs a query artifact and keeps its data in the store (as a mounted screen would). */
export async function fetchAndRetain(env: any, query: any, variables: Record<string, unknown>) {
  const data = await relay.fetchQuery(env, query, variables).toPromise();
  env.retain(relay.createOperationDescriptor(query, variables));
  return data;
}

/** A fragment's data as the store holds it now (what useFragment would render). */
export const readFragment = (env: any, fragment: any, ref: unknown) =>
  env.lookup(relay.getSelector(fragment, ref)).data;
