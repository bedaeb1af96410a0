import { createApp } from "./app";
import type { Env } from "./config";
import { forgetExpiredKeys } from "./http/idempotency";
import { consume } from "./notifications/consumer";
import { sweep } from "./notifications/sweep";

export { RateLimiter } from "./rate-limit/durable-object";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => consume(batch, env),
  scheduled: async (_controller, env, ctx) => {
    ctx.waitUntil(Promise.all([sweep(env), forgetExpiredKeys(env)]));
  },
} satisfies ExportedHandler<Env, unknown>;
