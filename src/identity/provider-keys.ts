// The identity provider's signing keys, fetched from its JWKS address (OIDC_JWKS_URL, or the
// discovery document's jwks_uri) and kept in memory with bounds jose's own remote key set lacks:
// - a removed key stops verifying within OIDC_JWKS_MAX_AGE: keys are fetched again in the
//   background every half of it, and keys older than it are never used;
// - a token naming a key not in the set (the provider rotated) fetches again at once, but never
//   twice within OIDC_JWKS_COOLDOWN, and a failed fetch is retried only after that pause: a flood
//   of made-up key ids, or of tokens while the provider is down, costs at most one fetch a cooldown;
// - one fetch at a time (discovery and keys within OIDC_FETCH_TIMEOUT each), 256 KB and 100 keys at
//   most; a provider that hangs, answers garbage or is down only costs the requests that carry its
//   tokens (503 when no keys can be used); this service's own tokens never wait for it.
// Key selection and import (kid, alg, use, key_ops; public keys only) are jose's createLocalJWKSet.
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import { DomainError } from "../contract/errors.ts";
import { fetchJson, ProviderFetchError, shownAddress } from "./fetch-json.ts";
import { isProviderAddress, type IdentityProviderSettings } from "./settings.ts";

/** A provider's discovery document or key set is a few KB; a larger one is refused unread past this. */
const MAX_DOCUMENT_BYTES = 256 * 1024;
/** Providers publish a handful of keys (current and next); importing thousands would cost every token check. */
const MAX_KEYS = 100;

/** What /readyz shows: `ok`, `stale` (keys still usable, the last fetch failed), `unavailable` (no usable keys), `starting`. */
export type KeysStatus = { state: "starting" | "ok" | "stale" | "unavailable"; problem?: string; keys?: number };

type KeySet = { select: JWTVerifyGetKey; kids: string[]; fetchedAt: number };

/** Where it says what happens (pino's, as Fastify's log is). */
type Log = { info(details: object, message: string): void; warn(details: object, message: string): void };

export class ProviderKeys {
  private keySet?: KeySet;
  /** The discovery document's jwks_uri, kept until a fetch of the keys fails. */
  private discovered?: string;
  private fetching?: Promise<void>;
  private lastAttempt = -Infinity;
  private problem?: string;
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly settings: IdentityProviderSettings,
    private readonly log: Log,
  ) {}

  /** Fetches the keys in the background (start-up does not wait for the provider). */
  start(): void {
    void this.refresh();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  status(): KeysStatus {
    const set = this.usableSet();
    if (set) return { state: this.problem ? "stale" : "ok", keys: set.kids.length, problem: this.problem };
    if (!this.problem) return { state: "starting" };
    return { state: "unavailable", problem: this.problem };
  }

  /** The key a token's header names, for jose's jwtVerify. Throws SERVICE_UNAVAILABLE when no keys can be had now. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const set = await this.current();
    try {
      return await usableKey(set, header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // A key published since the last fetch (a rotation): fetch again, unless that just happened.
      if (!this.fetching && !this.mayFetch()) throw error;
      await this.refresh();
      return usableKey(await this.current(), header, token);
    }
  };

  private usableSet(): KeySet | undefined {
    const set = this.keySet;
    return set && Date.now() - set.fetchedAt < this.settings.keysMaxAgeMs ? set : undefined;
  }

  private async current(): Promise<KeySet> {
    const fresh = this.usableSet();
    if (fresh) return fresh;
    if (this.fetching || this.mayFetch()) await this.refresh();
    const fetched = this.usableSet();
    if (fetched) return fetched;
    throw new DomainError(
      "SERVICE_UNAVAILABLE",
      "The identity provider's signing keys cannot be fetched now; try again shortly (tokens of this service still work).",
    );
  }

  private mayFetch(): boolean {
    return Date.now() - this.lastAttempt >= this.settings.keysCooldownMs;
  }

  /** One fetch at a time: a caller arriving meanwhile waits for the one under way. */
  private refresh(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.fetching ??= this.fetchKeys().finally(() => (this.fetching = undefined));
    return this.fetching;
  }

  private schedule(delayMs: number) {
    clearTimeout(this.timer);
    if (this.closed) return;
    this.timer = setTimeout(() => void this.refresh(), delayMs);
    this.timer.unref();
  }

  private async fetchKeys(): Promise<void> {
    this.lastAttempt = Date.now();
    const limits = { timeoutMs: this.settings.fetchTimeoutMs, maxBytes: MAX_DOCUMENT_BYTES };
    try {
      const address = this.settings.jwksUrl ?? (this.discovered ??= await this.discover());
      let select: JWTVerifyGetKey;
      let kids: string[];
      try {
        const jwks = await fetchJson(address, limits);
        kids = keyIds(jwks, address);
        select = createLocalJWKSet(jwks as JSONWebKeySet);
      } catch (error) {
        this.discovered = undefined; // the provider may have moved its keys: discover again next time
        if (error instanceof ProviderFetchError) throw error;
        throw new ProviderFetchError(`GET ${shownAddress(address)}: ${(error as Error).message}`);
      }
      const previous = this.keySet;
      this.keySet = { select, kids, fetchedAt: Date.now() };
      if (this.problem || !previous || previous.kids.join() !== kids.join())
        this.log.info({ jwksUrl: shownAddress(address), keys: kids }, "identity provider: signing keys fetched");
      this.problem = undefined;
      this.schedule(this.settings.keysMaxAgeMs / 2);
    } catch (error) {
      this.problem = error instanceof ProviderFetchError ? error.message : String(error);
      const usable = Boolean(this.usableSet());
      this.log.warn(
        { problem: this.problem, keysStillUsable: usable },
        usable
          ? "identity provider: fetching its signing keys failed; the keys fetched before are used until OIDC_JWKS_MAX_AGE"
          : "identity provider: its signing keys cannot be fetched; its tokens are refused (503) until they can",
      );
      this.schedule(this.settings.keysCooldownMs);
    }
  }

  /** The issuer's discovery document's jwks_uri; its `issuer` must be OIDC_ISSUER exactly (OpenID Connect Discovery 1.0, 4.3). */
  private async discover(): Promise<string> {
    const { issuer: base } = this.settings;
    const address = `${base.endsWith("/") ? base.slice(0, -1) : base}/.well-known/openid-configuration`;
    const document = await fetchJson(address, {
      timeoutMs: this.settings.fetchTimeoutMs,
      maxBytes: MAX_DOCUMENT_BYTES,
    });
    const where = `GET ${shownAddress(address)}`;
    if (typeof document !== "object" || document === null)
      throw new ProviderFetchError(`${where}: not a discovery document`);
    const { issuer, jwks_uri: jwksUri } = document as { issuer?: unknown; jwks_uri?: unknown };
    if (issuer !== this.settings.issuer)
      throw new ProviderFetchError(
        `${where}: names the issuer ${JSON.stringify(String(issuer).slice(0, 200))}, not OIDC_ISSUER`,
      );
    if (typeof jwksUri !== "string" || !isProviderAddress(jwksUri))
      throw new ProviderFetchError(`${where}: its jwks_uri is not an https:// address`);
    return jwksUri;
  }
}

/** The key a token names; a published key that cannot be imported (a provider's mistake) is jose's JWKSInvalid, as a refusal, never a fault of ours. */
async function usableKey(set: KeySet, ...named: Parameters<JWTVerifyGetKey>) {
  try {
    return await set.select(...named);
  } catch (error) {
    if (error instanceof errors.JOSEError) throw error;
    throw new errors.JWKSInvalid(`the provider's key cannot be used: ${(error as Error).message}`);
  }
}

/** The key ids of a key set, after checking its shape and size (jose checks each key as it is used). */
function keyIds(jwks: unknown, address: string): string[] {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  const where = `GET ${shownAddress(address)}`;
  if (!Array.isArray(keys) || !keys.every((k) => typeof k === "object" && k !== null))
    throw new ProviderFetchError(`${where}: not a JSON Web Key Set ({"keys": [...]})`);
  if (keys.length === 0) throw new ProviderFetchError(`${where}: the key set is empty`);
  if (keys.length > MAX_KEYS) throw new ProviderFetchError(`${where}: more than ${MAX_KEYS} keys`);
  return keys.map((k: { kid?: unknown }) => (typeof k.kid === "string" ? k.kid : "(no kid)"));
}
