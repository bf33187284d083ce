// Password hashing with scrypt (node:crypto): slow by design, salted, compared in constant time.
// Stored form: scrypt$N$r$p$<salt b64>$<hash b64>, so parameters can be raised later.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { RetryLaterError } from "../../contract/errors.ts";

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );

const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, KEYLEN, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${hash.toString("base64")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await scrypt(password, Buffer.from(salt, "base64"), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected);
}

/** A hash to compare against when the user does not exist, so timing does not reveal usernames. */
export const DUMMY_HASH = `scrypt$${N}$${R}$${P}$${Buffer.alloc(16).toString("base64")}$${Buffer.alloc(KEYLEN).toString("base64")}`;

export type HashingLimits = {
  /** scrypt calls running at once; each holds one of libuv's (by default 4) pool threads. */
  concurrency: number;
  /** Calls allowed to wait for a slot; beyond that the caller gets SERVER_BUSY (503). */
  maxQueue: number;
};

/**
 * Password hashing for requests, with a bound on how many scrypt calls run at once. scrypt runs
 * on libuv's thread pool, which file and DNS work share: unbounded, a burst of sign-ups or login
 * guesses would queue everyone's uploads and reads behind it. A full queue answers SERVER_BUSY
 * at once instead of growing. The counters feed /metrics.
 */
export class PasswordHasher {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** Most scrypt calls seen running at once since start. */
  peakRunning = 0;
  /** Calls refused because the queue was full. */
  refused = 0;

  constructor(private readonly limits: HashingLimits) {}

  get inFlight(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  hash(password: string): Promise<string> {
    return this.bounded(() => hashPassword(password));
  }

  verify(password: string, stored: string): Promise<boolean> {
    return this.bounded(() => verifyPassword(password, stored));
  }

  private async bounded<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.concurrency) {
      if (this.waiting.length >= this.limits.maxQueue) {
        this.refused++;
        throw new RetryLaterError("SERVER_BUSY", "The server is busy checking passwords; try again shortly.", 1);
      }
      // The slot is handed over by the finishing call (running is not decremented in between).
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    this.peakRunning = Math.max(this.peakRunning, this.running);
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/**
 * The stored hash of an account that has no password (it signs in through the identity provider):
 * well-formed, so a login attempt costs the same scrypt as any other and tells nothing, and random,
 * so no password matches it.
 */
export const unusablePasswordHash = () =>
  `scrypt$${N}$${R}$${P}$${randomBytes(16).toString("base64")}$${randomBytes(KEYLEN).toString("base64")}`;
