import { createApp } from "./app";
import type { Env } from "./env";
import { consume } from "./notifications/consumer";
import { sweep } from "./notifications/sweep";

export { RateLimiter } from "./rate-limit/durable-object";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => consume(batch, env),
  scheduled: async (_controller, env, ctx) => {
    ctx.waitUntil(sweep(env));
  },
} satisfies ExportedHandler<Env, unknown>;
