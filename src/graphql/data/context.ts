// The per-request context every resolver receives, built the same way for /graphql and the REST shim.
import DataLoader from "dataloader";
import type { Config } from "../../config.ts";
import { uploadSettings, type UploadSettings } from "../../storage/image-files.ts";
import type { UploadStore } from "../../storage/upload-store.ts";
import type { Db } from "../../db/db.ts";
import { SessionCache } from "../../domain/accounts/session-cache.ts";
import type { TokenCheck } from "../../domain/accounts/provider-tokens.ts";
import type { Authentication, Viewer } from "../../domain/accounts/tokens.ts";
import type { AccountGuards, ClientGuards } from "../../domain/accounts/users.ts";
import type { EventBus } from "../../events/bus.ts";
import type { LoaderDefinition } from "./loader-definition.ts";

/** The settings resolvers and the schema's wrappers read: these, not the whole Config, ride on every request. */
export type ContextSettings = {
  /** TOKEN_TTL: the life of a token issued by register or login. */
  tokenTtlMs: number;
  /** ANONYMOUS_READS: token-less requests may call reads declared @requireAuth(anonymousReads: true). */
  anonymousReads: boolean;
  /** GRAPHQL_MAX_RESPONSE_OBJECTS: the response ceiling (response-ceiling.ts). */
  maxResponseObjects: number;
  /** Where covers go and how large they may be (UPLOAD_*). */
  uploads: UploadSettings;
};

export const contextSettings = (config: Config, store: UploadStore): ContextSettings => ({
  tokenTtlMs: config.tokenTtlMs,
  anonymousReads: config.legacy.anonymousReads,
  maxResponseObjects: config.graphql.maxResponseObjects,
  uploads: uploadSettings(config, store),
});

export type Context = {
  db: Db;
  settings: ContextSettings;
  auth: Authentication;
  /** The signed-in user, or null; resolvers behind @requireAuth may rely on it being set. */
  viewer: Viewer | null;
  /**
   * This request's DataLoader of `definition`, created on first use. Resolver files declare their
   * loaders (defineLoader) next to the fields that use them, so each concern stays in its own file.
   */
  loaderOf<K, V>(definition: LoaderDefinition<K, V>): DataLoader<K, V>;
  /** Lets go of every row this request's loaders hold (its answer is sent: see transport/release-after-answer.ts). */
  dropLoaded(): void;
  /** Drops this request's token from the session cache (after it was revoked). */
  forgetToken(): void;
  /** Sign-up and login limits, counted against this request's client address. */
  guards: ClientGuards;
  /** Counts `units` more requests against this request's rate-limit buckets; throws RATE_LIMITED past them. */
  chargeRequests(units: number): Promise<void>;
  /** Accounts that signed in or registered in this request: their AuthPayload shows them as to themselves. */
  signedInNow: Set<string>;
  /** Where this request's committed writes are announced to subscribers. */
  events: EventBus;
  /** The request came through the legacy REST shim, whose `q` and `title` keep their meaning at every length. */
  legacyRest: boolean;
};

/** What the HTTP layer knows of the request a context is built for. */
export type ContextRequest = {
  /** The request's address (Fastify's request.ip, after TRUST_PROXY): sign-up and login limits count against it. */
  clientAddress: string;
  /** The rate limiter's charge for expensive fields (none for REST routes, which run one field each). */
  chargeRequests?: (units: number) => Promise<void>;
  /** The token's authentication when already checked for this request (src/http/token-before-body.ts). */
  known?: Authentication;
  /** The legacy REST shim's request (Context.legacyRest). */
  legacyRest?: boolean;
};

export type ContextFactory = ((token: string | undefined, request: ContextRequest) => Promise<Context>) & {
  /**
   * Checks a token the same way (and through the same session cache) as building a context does;
   * `maxAgeMs` refuses cached answers older than that (WebSocket connections re-checking their token).
   */
  authenticate(token: string | undefined, maxAgeMs?: number): Promise<Authentication>;
  /** Stops the session cache following the event bus (the server closes). */
  close(): void;
};

/** `checkToken`: who a token is (this service's tokens only by default; src/domain/accounts/provider-tokens.ts adds the identity provider's). */
export function contextFactory(
  db: Db,
  config: Config,
  guards: AccountGuards,
  events: EventBus,
  store: UploadStore,
  checkToken?: TokenCheck,
): ContextFactory {
  const sessions = new SessionCache(config.sessionCacheTtlMs, events, checkToken);
  const settings = contextSettings(config, store);
  const create = async (token: string | undefined, { clientAddress, chargeRequests = async () => {}, known, legacyRest = false }: ContextRequest): Promise<Context> => {
    const auth = known ?? (await sessions.authenticate(db, token));
    const loaders = new Map<LoaderDefinition<never, unknown>, DataLoader<unknown, unknown>>();
    const context: Context = {
      db,
      settings,
      auth,
      viewer: auth.state === "valid" ? auth.viewer : null,
      forgetToken: () => sessions.forget(token),
      guards: { ...guards, clientAddress },
      chargeRequests,
      signedInNow: new Set(),
      events,
      legacyRest,
      loaderOf<K, V>(definition: LoaderDefinition<K, V>) {
        let loader = loaders.get(definition) as DataLoader<K, V> | undefined;
        if (!loader) {
          loader = new DataLoader<K, V>((keys) => definition.batch(context, keys), { maxBatchSize: 500, name: definition.name });
          loaders.set(definition, loader as DataLoader<unknown, unknown>);
        }
        return loader;
      },
      dropLoaded() {
        loaders.clear();
      },
    };
    return context;
  };
  return Object.assign(create, {
    authenticate: (token: string | undefined, maxAgeMs?: number) => sessions.authenticate(db, token, maxAgeMs),
    close: () => sessions.close(),
  });
}

/** The signed-in user; only for resolvers behind @requireAuth, where it is always set. */
/**
 * The client whose share a request counts against wherever one client's share of something scarce
 * is bounded (live sockets and subscriptions, SQLite's reader threads): an account when signed in
 * (a new login is the same client), else an address (request.ip: X-Forwarded-For's behind TRUST_PROXY).
 */
export const clientKeyOf = (viewer: Viewer | null, address: string) => (viewer ? `user:${viewer.id}` : `address:${address}`);

export function viewerOf(ctx: Context): Viewer {
  if (!ctx.viewer) throw new Error("viewerOf called outside @requireAuth");
  return ctx.viewer;
}
