import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { sweep } from "../../src/notifications/sweep";
import {
  applicationWithEvent,
  partnerEndpoint,
  QUEUE,
  runBatch,
  T0,
  useNotificationHarness,
} from "../support/notifications";

useNotificationHarness();

describe("the sweep", () => {
  it("enqueues events that were never handed to the queue, once per five minutes", async () => {
    const { event } = await applicationWithEvent();
    const send = vi.spyOn(env.NOTIFICATIONS, "sendBatch");
    vi.setSystemTime(new Date(T0.getTime() + 5 * 60_000 + 1));
    expect(await sweep(env)).toBeGreaterThanOrEqual(1);
    expect(send.mock.calls.flatMap((c) => [...c[0]].map((m) => (m.body as { eventId: string }).eventId))).toContain(
      event.id,
    );
    // Swept just now: not again before another five minutes.
    const swept = await env.DB.prepare("SELECT enqueued_at AS at FROM events WHERE id = ?")
      .bind(event.id)
      .first<{ at: number }>();
    expect(swept!.at).toBe(T0.getTime() + 5 * 60_000 + 1);
  });

  it("leaves events alone that are delivered or already being retried", async () => {
    const { event } = await applicationWithEvent();
    partnerEndpoint(() => new Response(null, { status: 500 }));
    vi.spyOn(console, "warn").mockImplementation(() => {});
    await runBatch(QUEUE, [{ body: { eventId: event.id } }]);
    const send = vi.spyOn(env.NOTIFICATIONS, "sendBatch");
    vi.setSystemTime(new Date(T0.getTime() + 60 * 60_000));
    await sweep(env);
    const swept = send.mock.calls.flatMap((c) => [...c[0]].map((m) => (m.body as { eventId: string }).eventId));
    expect(swept).not.toContain(event.id);
  });
});
