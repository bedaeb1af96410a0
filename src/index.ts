import { createApp } from "./app";
import type { Env } from "./config";
import { lazyObject } from "./lazy-object";

// The Durable Objects' code is loaded by each object's first event, not by the Worker's start (src/lazy-object.ts).
export const EndpointMailbox = lazyObject(async () => (await import("./mailbox/durable-object")).EndpointMailbox, {
  accept: true,
  state: true,
  alarm: true,
});
export const RateLimiter = lazyObject(async () => (await import("./rate-limit/durable-object")).RateLimiter, {
  hit: true,
  attempt: true,
  release: true,
  openSession: true,
  remember: true,
  moveSession: true,
  revokeSession: true,
  openConsoleSession: true,
  useConsoleSession: true,
  endConsoleSession: true,
  openPersonSession: true,
  usePersonSession: true,
  personSessions: true,
  endPersonSession: true,
  movePersonSessions: true,
  endPersonSessions: true,
  alarm: true,
});

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
