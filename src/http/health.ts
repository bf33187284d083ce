// /healthz: the process answers (liveness; it touches nothing that can hang). /readyz: the service
// can do its work: the database answers, writes succeed, and the upload folder can be written (or
// the upload bucket answers).
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { Db } from "../db/db.ts";
import type { KeysStatus } from "../identity/provider-keys.ts";
import type { SharedRedis } from "../redis/connection.ts";
import type { UploadStore } from "../storage/upload-store.ts";

/** A check that has not answered by then counts as failed: readiness answers, whatever hangs. */
const CHECK_TIMEOUT_MS = 2000;

function within<T>(ms: number, pending: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([pending, timeout]).finally(() => clearTimeout(timer));
}

async function databaseCheck(db: Db): Promise<string> {
  await within(CHECK_TIMEOUT_MS, db.prisma.$queryRawUnsafe("SELECT 1"));
  return "ok";
}

/** "ok", or why the last write failed while a probe write still fails (see src/db/health/write-health.ts). */
async function writesCheck(db: Db): Promise<string> {
  const failure = await within(CHECK_TIMEOUT_MS, db.checkWrites());
  if (!failure) return "ok";
  return failure.kind === "STORAGE_FULL" ? "storage full" : "failing";
}

/** The upload store takes files: the folder is there and writable, or the bucket answers. */
async function uploadsCheck(store: UploadStore): Promise<string> {
  await within(CHECK_TIMEOUT_MS, store.check());
  return "ok";
}

/** `identityProvider`: ok, stale (the last fetch of its keys failed; those fetched before still serve), unavailable or starting; and why. */
function identityProviderState({ state, problem }: KeysStatus) {
  return { identityProvider: state, ...(problem ? { identityProviderProblem: problem } : {}) };
}

/** Liveness and readiness. */
export const HEALTH_PATH = "/healthz";
export const READINESS_PATH = "/readyz";

export type HealthOptions = {
  /** The database /readyz checks (it answers, and writes succeed). */
  db: Db;
  /** Where covers live: /readyz checks this process may write in UPLOAD_DIR, or that the bucket answers. */
  store: UploadStore;
  /** REDIS_URL's connection: shown by /readyz, never counted against readiness. Default none. */
  redis?: SharedRedis;
  /** OIDC_ISSUER's keys: shown by /readyz, never counted against readiness. Default none. */
  identityKeys?: { status(): KeysStatus };
};

async function health(app: FastifyInstance, { db, store, redis, identityKeys }: HealthOptions) {
  app.get(HEALTH_PATH, async () => ({ status: "ok" }));
  app.get(READINESS_PATH, async (request, reply) => {
    const [database, writes, uploads] = await Promise.all([
      databaseCheck(db).catch((error) => {
        request.log.warn({ err: error }, "readiness: database unreachable");
        return "unreachable";
      }),
      writesCheck(db).catch((error) => {
        request.log.warn({ err: error }, "readiness: write probe failed");
        return "failing";
      }),
      uploadsCheck(store).catch((error) => {
        request.log.warn(
          { err: error },
          `readiness: upload ${store.kind === "s3" ? "bucket unreachable" : "folder not writable"}`,
        );
        return store.kind === "s3" ? "unreachable" : "not writable";
      }),
    ]);
    const ready = database === "ok" && writes === "ok" && uploads === "ok";
    if (!ready) {
      const reason = Object.entries({ database, writes, uploads })
        .filter(([, state]) => state !== "ok")
        .map(([check, state]) => `${check} ${state}`)
        .join(", ");
      request.log.warn({ database, writes, uploads, reason }, "not ready");
    }
    // Shown, never counted against readiness: without Redis an instance still serves, with its
    // rate limits per instance; failing every instance's check would turn a Redis outage into a full one.
    const shared = redis ? { redis: redis.reachable() ? "ok" : "unreachable" } : {};
    // Shown, never counted either: without the provider's keys this service's own tokens, and
    // anything public, are still served, and every instance would fail alike.
    const provider = identityKeys && identityProviderState(identityKeys.status());
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? "ok" : "unavailable", database, writes, uploads, ...shared, ...provider });
  });
}

// Encapsulated: it only adds routes.
export const healthPlugin = fp(health, { name: "health", fastify: "5.x", encapsulate: true });
