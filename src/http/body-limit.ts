import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../env";
import { ApiError } from "./errors";

/** 10 MB as the contract counts it. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * 413 over `maxBytes`, by Content-Length or counted while a streamed body arrives. A stream that breaks
 * before its end (the client went away, the connection was cut) is the client's fault: 400, so that
 * logs and metrics do not blame the service, even though the client will not see the answer.
 */
export function limitBodyTo(maxBytes: number) {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError("request_too_large", `request body exceeds ${maxBytes} bytes`);
    },
  });
  return createMiddleware<HonoEnv>(async (c, next) => {
    let reachedHandler = false;
    try {
      await limit(c, async () => {
        reachedHandler = true;
        await next();
      });
    } catch (error) {
      if (reachedHandler || error instanceof ApiError) throw error;
      throw ApiError.of([{ code: "INVALID_REQUEST", message: "the request body could not be read to its end" }]);
    }
  });
}

/** Every request: the contract's 10 MB. */
export const limitBody = limitBodyTo(MAX_BODY_BYTES);

/**
 * With DRAIN_UNREAD_BODIES (local development only): a request body the answer did not need is read to
 * its end before the answer leaves. wrangler dev puts a proxy before the Worker whose connection to it
 * breaks when an answer comes before the body was read: a 413 for a body over 10 MB arrived empty, as a
 * 503 "Your worker restarted mid-request" or as a reset, and the next request on that connection could
 * fail the same way. Deployed, the Worker answers at once and never reads what it refused.
 */
export const drainUnreadBody = createMiddleware<HonoEnv>(async (c, next) => {
  if (!c.var.config.DRAIN_UNREAD_BODIES) return next();
  const { body } = c.req.raw;
  await next();
  if (body && !body.locked) {
    // A client that went away mid-body leaves nothing to drain: the answer stands.
    await body.pipeTo(new WritableStream()).catch(() => undefined);
  }
});
