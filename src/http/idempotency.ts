import { and, eq, lte, sql } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import { sha256Hex } from "../auth/crypto";
import { session } from "../auth/require-session";
import { now } from "../clock";
import { database } from "../db/client";
import { idempotencyKeys } from "../db/schema";
import type { HonoEnv } from "../env";
import { ApiError, detail } from "./errors";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a retry waits for the first request with its key to finish before giving up. */
const IN_FLIGHT_WAIT_MS = 10_000;
const POLL_MS = 100;
/** Headers of the first response that a replay repeats. */
const REPLAYED_HEADERS = ["content-type", "location"];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `Idempotency-Key` on POST and PUT (CONTRACT 1): the first request with a key claims it (a row per
 * partner and key), runs, and stores its answer; the same key with the same method, path and body
 * within 24 hours answers that stored response again without doing the work twice; with another
 * body it is refused with 422 IDEMPOTENCY_KEY_REUSED. A 5xx is not stored, so the client can retry.
 * Without the header a request costs nothing extra here.
 */
export const idempotency = createMiddleware<HonoEnv>(async (c, next) => {
  const key = c.req.header("Idempotency-Key");
  if (key === undefined || (c.req.method !== "POST" && c.req.method !== "PUT")) return next();
  if (key.length < 1 || key.length > 255) {
    throw ApiError.of([
      { code: "INVALID_VALUE", message: "must be 1 to 255 characters", attribute: "Idempotency-Key" },
    ]);
  }
  const { partnerId } = session(c);
  const target = `${c.req.method} ${new URL(c.req.url).pathname}`;
  const body = await (c.req.bodyCache as Record<string, Promise<string>>).text;
  const requestHash = await sha256Hex(`${target}\n${body}`);
  const db = database(c.env);
  const where = and(eq(idempotencyKeys.partnerId, partnerId), eq(idempotencyKeys.key, key));

  for (let waited = 0; ; waited += POLL_MS) {
    const at = now();
    // Claim the key, taking over a row whose 24 hours have passed.
    const claimed = await db
      .insert(idempotencyKeys)
      .values({ partnerId, key, target, requestHash, createdAt: at })
      .onConflictDoUpdate({
        target: [idempotencyKeys.partnerId, idempotencyKeys.key],
        set: { target, requestHash, createdAt: at, responseStatus: null, responseBody: null, responseHeaders: null },
        setWhere: lte(idempotencyKeys.createdAt, at - IDEMPOTENCY_TTL_MS),
      })
      .returning({ key: idempotencyKeys.key });
    if (claimed.length > 0) break;

    const first = await db.select().from(idempotencyKeys).where(where).get();
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
      return c.body(first.responseBody ?? "", first.responseStatus as 200, Object.fromEntries(headers));
    }
    if (waited >= IN_FLIGHT_WAIT_MS) {
      throw new ApiError("conflict", "a request with this Idempotency-Key is still being processed", [
        detail("IDEMPOTENCY_KEY_IN_USE", "retry when the first request has finished", "Idempotency-Key"),
      ]);
    }
    await sleep(POLL_MS);
  }

  await next();
  if (c.res.status >= 500) {
    await db.delete(idempotencyKeys).where(where);
    return;
  }
  const headers = Object.fromEntries(
    REPLAYED_HEADERS.flatMap((h) => (c.res.headers.has(h) ? [[h, c.res.headers.get(h)!]] : [])),
  );
  await db
    .update(idempotencyKeys)
    .set({ responseStatus: c.res.status, responseBody: await c.res.clone().text(), responseHeaders: headers })
    .where(where);
});

/** Scheduled clean-up of keys older than 24 hours. */
export async function forgetExpiredKeys(env: HonoEnv["Bindings"]): Promise<void> {
  await database(env)
    .delete(idempotencyKeys)
    .where(sql`${idempotencyKeys.createdAt} <= ${now() - IDEMPOTENCY_TTL_MS}`);
}
