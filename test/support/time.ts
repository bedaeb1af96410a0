/**
 * Time in an application's life, for the tests of deadlines: a fake clock far from real time (so that
 * nothing scheduled fires on its own), tokens valid at whatever time a test moves to, the Cron Trigger
 * run by hand, and the events in the outbox.
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, vi } from "vitest";
import worker from "../../src/index";
import { call, json, login, type TestPartner } from "./api";
import { applicationRequest, createApplication } from "./factories";
import { hiddenFields, openGateway, postGateway } from "./gateway";
import { app } from "./orders";
import { dbOfApplication } from "./shards";

export const T0 = Date.parse("2027-03-01T09:00:00Z");
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** The fake clock at T0 before each test of the file that calls it, and what the queue is handed held back. */
export function useClock() {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
    // What is handed to the queue is not delivered here: the events in D1 are what is checked.
    vi.spyOn(env.NOTIFICATIONS, "sendBatch").mockResolvedValue(undefined as never);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
}

/** The clock at `instant`, and a token of the partner's valid then (a token lives two hours). */
export async function at(instant: number, partner: TestPartner): Promise<string> {
  vi.setSystemTime(instant);
  return login(partner);
}

/** One run of the Cron Trigger, as the runtime would start it. */
export async function cron() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/5 * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

/** Every event of the application, as stored: the outbox a partner is notified from. */
export async function events(applicationId: string) {
  const rows = await (await dbOfApplication(applicationId))
    .prepare(
      "SELECT type, state, state_reason AS stateReason, expires_at AS expiresAt FROM events WHERE application_id = ? ORDER BY sequence",
    )
    .bind(applicationId)
    .all<{ type: string; state: string; stateReason: string; expiresAt: number | null }>();
  return rows.results;
}

/** An application the customer confirmed at the gateway at the clock's time (approved, or as `email` says). */
export async function confirmed(token: string, email = "jana@example.com") {
  const created = await createApplication(token, applicationRequest({ email }));
  const page = await openGateway(created.gatewayRedirectUrl);
  await postGateway(created.gatewayRedirectUrl, { ...hiddenFields(page.html), action: "confirm" });
  return created;
}

export async function application(token: string, id: string) {
  return json<{ state: string; stateReason: string; expiresAt?: string; cancellation?: { reason: string } }>(
    await call("GET", app(id), { token }),
  );
}

/** A date-time as the service writes it (UTC, the tests' SERVICE_TIMEZONE). */
export const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "+00:00");
