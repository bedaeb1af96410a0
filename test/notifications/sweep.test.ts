import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { sweep } from "../../src/notifications/sweep";
import { signIn } from "../support/api";
import { createApplication } from "../support/factories";

const QUEUE = "financing-notifications";
const T0 = new Date("2027-02-01T09:30:00Z");

interface Captured {
  url: string;
  method: string;
  headers: Headers;
  body: string;
}

let sent: Captured[] = [];

/** Replaces outbound fetch: records every notification and answers with `respond`. */
function partnerEndpoint(respond: (req: Request) => Response | Promise<Response>) {
  return vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const req = new Request(input as RequestInfo, init);
    sent.push({ url: req.url, method: req.method, headers: req.headers, body: await req.clone().text() });
    return respond(req);
  });
}

async function firstEvent(applicationId: string) {
  return (await env.DB.prepare("SELECT * FROM events WHERE application_id = ? ORDER BY sequence")
    .bind(applicationId)
    .first<{ id: string; status: string; sequence: number }>())!;
}

async function runBatch(queue: string, messages: { body: unknown; attempts?: number }[]) {
  const batch = createMessageBatch(
    queue,
    messages.map((m, i) => ({ id: `msg-${i}`, timestamp: new Date(), attempts: m.attempts ?? 1, body: m.body })),
  );
  // The harness reports which messages were retried, not with which delay: read that off retry().
  const retries = batch.messages.map((message) => vi.spyOn(message, "retry"));
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  const result = await getQueueResult(batch, ctx);
  const retryMessages = result.retryMessages.map(({ msgId }: { msgId: string }) => {
    const index = batch.messages.findIndex((m) => m.id === msgId);
    return { msgId, delaySeconds: retries[index]!.mock.calls[0]?.[0]?.delaySeconds };
  });
  return { ...result, retryMessages };
}

async function setUp() {
  const { partner, token } = await signIn();
  const app = await createApplication(token);
  const event = await firstEvent(app.id);
  return { partner, app, event };
}

beforeEach(() => {
  sent = [];
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("the sweep", () => {
  it("enqueues events that were never handed to the queue, once per five minutes", async () => {
    const { event } = await setUp();
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
    const { event } = await setUp();
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
