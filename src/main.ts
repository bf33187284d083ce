// Start-up: settings, database (migrated), server; graceful shutdown on SIGTERM/SIGINT.
import "./node-guard.ts"; // first: stops an unsupported Node before the SQLite driver loads
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { createDb } from "./db/client.ts";
import { migrate } from "./db/migrate.ts";
import { bannerText, logBanner } from "./http/banner.ts";
import { precompressRestReference } from "./http/pages/rest-reference.ts";
import { describeRuntime } from "./http/runtime.ts";
import { createMetrics, observeStatement } from "./http/observability/metrics.ts";
import { createEventBus } from "./events/create-bus.ts";
import { loadTracing } from "./observability/load-tracing.ts";
import { buildServer } from "./server.ts";
import { ManifestError } from "./graphql/persisted/manifest.ts";
import { recordCoverSizes, sweepUploads } from "./storage/sweep.ts";
import { filesystemStore } from "./storage/filesystem-store.ts";
import { createUploadStore } from "./storage/upload-store.ts";

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

const config = readConfig();
const tracing = await loadTracing(config).catch((error: Error) => {
  console.error(`TRACING=${config.tracing.exporter}: ${error.message}`);
  process.exit(2);
});
const applied = await migrate(config.database);
const metrics = createMetrics();
type Statement = { query: string; durationMs: number; startedAt?: Date };
const statementObservers = [
  ...(config.metrics.enabled ? [(e: Statement) => observeStatement(metrics, e)] : []),
  ...(tracing ? [tracing.statement] : []),
];
const db = createDb({
  ...config.database,
  onQuery: statementObservers.length ? (e) => statementObservers.forEach((observe) => observe(e)) : undefined,
});
// Events reach every instance through PostgreSQL's LISTEN/NOTIFY, or stay in-process with SQLite (src/events/create-bus.ts).
const events = await createEventBus(config);
const app = await buildServer({ config, db, metrics, tracing, events }).catch((error: unknown) => {
  // A trusted-documents manifest that does not parse or validate: a setting to fix, as above.
  if (!(error instanceof ManifestError)) throw error;
  console.error(error.message);
  process.exit(2);
});
if (applied.length) app.log.info({ migrations: applied }, "database migrated");

// The store's leftovers, and with a bucket those of UPLOAD_DIR too (the REST shim spools files there).
const uploadStore = await createUploadStore(config);
const sweptStores =
  uploadStore.kind === "s3"
    ? [uploadStore, filesystemStore({ dir: config.uploadDir, diskReserveBytes: 0 })]
    : [uploadStore];
async function sweep() {
  let removed: string[] = [];
  for (const store of sweptStores) {
    removed = removed.concat(
      await sweepUploads(db, store, config.uploadSweepAgeMs).catch((error) => {
        app.log.warn({ err: error }, "upload sweep failed");
        return [];
      }),
    );
  }
  if (removed.length) app.log.info({ files: removed.length }, "removed unreferenced upload files");
  const sized = await recordCoverSizes(db, uploadStore).catch((error) => {
    app.log.warn({ err: error }, "recording cover sizes failed");
    return 0;
  });
  if (sized) app.log.info({ covers: sized }, "recorded the size of covers stored without one (upload quota)");
}
// A bucket may be slow or away at start-up (S3_TIMEOUT, one retry): its sweep does not hold the start.
if (uploadStore.kind === "s3") void sweep();
else await sweep();
setInterval(sweep, 3_600_000).unref();

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  app.log.info({ signal }, "shutting down: finishing in-flight requests");
  const timer = setTimeout(() => {
    app.log.error("shutdown timed out; exiting");
    process.exit(1);
  }, config.shutdownTimeoutMs);
  timer.unref();
  try {
    await app.close(); // stops accepting, waits for in-flight requests, drains Apollo
    app.log.info("requests finished; closing the event bus and the database");
    await events.close(); // after the server: the last writes' events still go out
    await db.close();
    uploadStore.close();
    await tracing?.shutdown(); // sends the spans still buffered
    app.log.info("stopped");
    process.exit(0);
  } catch (error) {
    app.log.error({ err: error }, "shutdown failed");
    process.exit(1);
  }
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));

const address = await app.listen({ port: config.port, host: config.host }); // Fastify logs "Server listening at …"
// In the background, on zlib's threads: no visitor of /docs waits for the script's compression.
void precompressRestReference().catch((error) =>
  app.log.warn({ err: error }, "REST reference not compressed ahead: it will be on first use"),
);
const facts = {
  address,
  emptyDatabase: (await db.prisma.user.count().catch(() => 1)) === 0,
  explorer: config.graphql.explorer,
  runtime: describeRuntime(),
};
// A block for a person at a terminal (as with pretty logs); log lines for everything else.
if (process.stdout.isTTY && config.env !== "production") console.log(bannerText(facts));
else logBanner(app.log, facts);
