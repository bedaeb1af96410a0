import { createApp } from "./app";
import type { Env } from "./config";

export { EndpointMailbox } from "./mailbox/durable-object";
export { RateLimiter } from "./rate-limit/durable-object";

// Only the middleware chain is built here: the route modules, the queue consumer and the sweep are
// loaded when first needed, so that starting the Worker evaluates no more than a request needs.
const app = createApp();

export default {
  fetch: app.fetch,
  queue: async (batch, env, _ctx) => (await import("./notifications/consumer")).consume(batch, env),
  scheduled: async (_controller, env, ctx) => {
    const { runScheduled } = await import("./scheduled");
    ctx.waitUntil(runScheduled(env));
  },
} satisfies ExportedHandler<Env, unknown>;
