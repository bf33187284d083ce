// The per-request context every resolver receives, built the same way for /graphql and the REST shim.
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { authenticate, type Authentication, type Viewer } from "../domain/tokens.ts";

export type Context = {
  db: Db;
  config: Config;
  auth: Authentication;
  /** The signed-in user, or null; resolvers behind @requireAuth may rely on it being set. */
  viewer: Viewer | null;
};

export type ContextFactory = (token: string | undefined) => Promise<Context>;

export function contextFactory(db: Db, config: Config): ContextFactory {
  return async (token) => {
    const auth = await authenticate(db, token);
    return { db, config, auth, viewer: auth.state === "valid" ? auth.viewer : null };
  };
}

/** The signed-in user; only for resolvers behind @requireAuth, where it is always set. */
export function viewerOf(ctx: Context): Viewer {
  if (!ctx.viewer) throw new Error("viewerOf called outside @requireAuth");
  return ctx.viewer;
}
