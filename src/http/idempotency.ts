import type { Context, Next } from "hono";
import { createMiddleware } from "hono/factory";
import { openSecret, sealSecret, sha256Hex } from "../auth/crypto";
import { session } from "../auth/require-session";
import { now } from "../clock";
import type { HonoEnv } from "../env";
import { ApiError, detail } from "./errors";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long a claim holds while its request runs. A request takes well under a second; a claim still
 * unanswered after this belonged to a request whose runtime died, and the next request with the same
 * key and body takes it over.
 */
export const IDEMPOTENCY_LEASE_MS = 60_000;
/** How long a retry waits for the first request with its key to finish before answering 409. */
const IN_FLIGHT_WAIT_MS = 10_000;
const POLL_MS = 100;
/** Headers of the first response that a replay repeats. */
const REPLAYED_HEADERS = ["content-type", "location", "cache-control"];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The key store, loaded by the first request that sends a key rather than at the Worker's startup (this
 * middleware is part of every request; most send no key).
 */
const keyStore = async () => {
  const [keys, storage] = await Promise.all([import("../db/idempotency-keys"), import("../db/storage")]);
  return { ...keys, ...storage };
};

/**
 * `Idempotency-Key` on POST and PUT (CONTRACT 1): the first request with a key claims it (a row per
 * partner and key, with a lease), runs, and stores its answer; the same key with the same method, path
 * and body within 24 hours answers that stored response again without doing the work twice; with
 * another body it is refused with 422 IDEMPOTENCY_KEY_REUSED; while the first runs it waits up to 10 s,
 * then answers 409 with Retry-After. A 5xx is not stored, so the client can retry. Stored answers are
 * encrypted: they may hold a secret shown once (a signing secret) or a gateway URL, whose token lets
 * anyone decide the application. Without the header a request costs nothing extra here.
 */
export const idempotency = createMiddleware<HonoEnv>(async (c, next) => {
  const key = c.req.header("Idempotency-Key");
  if (key === undefined || (c.req.method !== "POST" && c.req.method !== "PUT")) return next();
  if (key.length < 1 || key.length > 255) {
    throw ApiError.of([
      { code: "INVALID_VALUE", message: "must be 1 to 255 characters", attribute: "Idempotency-Key" },
    ]);
  }
  // The JSON body middleware has read the body as text.
  return once(c, key, await (c.req.bodyCache as Record<string, Promise<string>>).text, next);
});

/**
 * Runs `next` once per partner and key; the same key again with the same `body` answers the first
 * answer (see above). The key is the header's, or the console's one-time token of a form: a double-click
 * or a form posted twice then does the work once.
 */
export async function once(c: Context<HonoEnv>, key: string, body: string, next: Next): Promise<Response | undefined> {
  const { partnerId } = session(c);
  const pepper = c.var.config.AUTH_PEPPER;
  const target = `${c.req.method} ${new URL(c.req.url).pathname}`;
  const requestHash = await sha256Hex(`${target}\n${body}`);
  const { claimKey, keyRow, releaseKey, storeAnswer, StorageQuotaExceeded, STORAGE_QUOTA_PROBLEM } = await keyStore();
  const db = await c.var.db.orm();
  const quota = c.var.config.STORAGE_QUOTA_BYTES;

  for (let waited = 0; ; waited += POLL_MS) {
    const at = now();
    const claim = { partnerId, key, target, requestHash, at, leaseUntil: at + IDEMPOTENCY_LEASE_MS };
    let claimed: boolean;
    try {
      claimed = await claimKey(db, claim, IDEMPOTENCY_TTL_MS, quota);
    } catch (error) {
      if (error instanceof StorageQuotaExceeded) throw ApiError.of([STORAGE_QUOTA_PROBLEM]);
      throw error;
    }
    if (claimed) break;

    const first = await keyRow(db, partnerId, key);
    // Gone: the first request failed with a 5xx and released the key; claim it in the next round.
    if (!first) continue;
    if (first.requestHash !== requestHash) {
      throw ApiError.of([
        {
          code: "IDEMPOTENCY_KEY_REUSED",
          message: "this Idempotency-Key was used with another request in the last 24 hours",
          attribute: "Idempotency-Key",
        },
      ]);
    }
    if (first.responseStatus !== null) {
      const headers = new Headers(first.responseHeaders as Record<string, string>);
      headers.set("Idempotent-Replayed", "true");
      const stored = first.responseBody ?? "";
      // Answers stored before they were sealed (within a day of the upgrade) are JSON, never "v1.…".
      const replayed = stored.startsWith("v1.") ? await openSecret(stored, pepper, "idempotent-response") : stored;
      return c.body(replayed, first.responseStatus as 200, Object.fromEntries(headers));
    }
    if (waited >= IN_FLIGHT_WAIT_MS) {
      const retryAfter = Math.max(1, Math.ceil(((first.leaseUntil ?? at) - at) / 1000));
      throw new ApiError(
        "conflict",
        "a request with this Idempotency-Key is still being processed",
        [detail("IDEMPOTENCY_KEY_IN_USE", "retry when the first request has finished", "Idempotency-Key")],
        { "Retry-After": String(retryAfter) },
      );
    }
    await sleep(POLL_MS);
  }

  try {
    await next();
  } catch (error) {
    // Hono's own `next` answers a thrown error with a 500 (released below); the console's forms run
    // their work directly, so its error arrives here, and the key must go too or the form stays blocked
    // for the lease.
    await releaseKey(db, partnerId, key);
    throw error;
  }
  if (c.res.status >= 500) {
    await releaseKey(db, partnerId, key);
    return undefined;
  }
  const headers = Object.fromEntries(
    REPLAYED_HEADERS.flatMap((h) => (c.res.headers.has(h) ? [[h, c.res.headers.get(h)!]] : [])),
  );
  const answer = await c.res.clone().text();
  await storeAnswer(db, partnerId, key, {
    status: c.res.status,
    body: await sealSecret(answer, pepper, "idempotent-response"),
    headers,
  });
  return undefined;
}

/** Scheduled clean-up of a shard's keys older than 24 hours (src/db/shards.ts; the cron visits each). */
export async function forgetExpiredKeys(env: HonoEnv["Bindings"], shard = 0): Promise<void> {
  const [{ forgetKeysBefore }, { shardDatabase }] = await Promise.all([keyStore(), import("../db/client")]);
  await forgetKeysBefore(shardDatabase(env, shard), now() - IDEMPOTENCY_TTL_MS);
}
