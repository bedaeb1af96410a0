import { createApp } from "./app";
import type { Env } from "./env";
import type { NotificationMessage } from "./notifications/message";

export { RateLimiter } from "./rate-limit/durable-object";

const app = createApp();

export default {
  fetch: app.fetch,
  async queue(batch) {
    // Delivery lands with the notifications work; until then nothing is acknowledged, so nothing is lost.
    batch.retryAll();
  },
} satisfies ExportedHandler<Env, NotificationMessage>;
