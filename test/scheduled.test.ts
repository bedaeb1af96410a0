import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import worker from "../src/index";
import { OVERDUE_AFTER_MS } from "../src/notifications/sweep";
import { runScheduled } from "../src/scheduled";
import { call, signIn } from "./support/api";
import { countRows, createApplication } from "./support/factories";
import { at, events, T0, useClock } from "./support/time";

const HOUR = 3600_000;

async function tokenRecords(partnerId: string, count: number, expiresAt: number, prefix: string) {
  const rows = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, "0")}`);
  for (let i = 0; i < rows.length; i += 100) {
    await env.DB.batch(
      rows
        .slice(i, i + 100)
        .map((hash) =>
          env.DB.prepare(
            "INSERT INTO access_tokens (token_hash, partner_id, expires_at, created_at) VALUES (?, ?, ?, ?)",
          ).bind(hash, partnerId, expiresAt, expiresAt - 2 * HOUR),
        ),
    );
  }
}

describe("the Cron Trigger", () => {
  it("purges the records of expired access tokens, however many, and keeps the live ones", async () => {
    const { partner } = await signIn();
    const at = Date.now();
    await tokenRecords(partner.id, 1_200, at - HOUR, "expired");
    await tokenRecords(partner.id, 3, at + HOUR, "live");
    // The one the sign-in wrote is live too.
    expect(await countRows("access_tokens", "partner_id = ?", partner.id)).toBe(1_204);

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: at, cron: "*/5 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);

    expect(await countRows("access_tokens", "partner_id = ? AND expires_at < ?", partner.id, at)).toBe(0);
    expect(await countRows("access_tokens", "partner_id = ?", partner.id)).toBe(4);
  });
});

describe("a run of the scheduled work", () => {
  useClock();

  it("answers and logs what it did: deadlines applied, notifications woken, token records forgotten", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    await tokenRecords(partner.id, 3, T0 + HOUR, "expiring");
    // Past the customer's 72 hours: the application lapses, its first event (never delivered: the
    // queue is held back) is overdue, and the three token records have expired.
    const later = T0 + 73 * HOUR;
    await at(later, partner);
    const due = await countRows("applications", "next_due_at <= ?", later);
    const overdue = await countRows("events", "status = 'PENDING' AND next_attempt_at <= ?", later - OVERDUE_AFTER_MS);
    const expired = await countRows("access_tokens", "expires_at < ?", later);
    expect([due, overdue, expired].every((n) => n > 0)).toBe(true);
    const logged = vi.spyOn(console, "log");

    const run = await runScheduled(env);

    expect(run).toEqual({
      deadlines: { applied: due, more: false },
      notificationsWoken: overdue,
      tokensForgotten: expired,
      payouts: { closed: 0, more: false },
      paid: { told: 0, more: false },
      documentsMoved: { moved: 0, more: false },
      filesCollected: 0,
      archived: { archived: 0, more: false },
      partnersMoved: 0,
      failed: [],
    });
    expect((await events(created.id)).at(-1)).toMatchObject({ stateReason: "CANCELLED_EXPIRED" });
    const lines = logged.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(lines).toContainEqual({ level: "info", message: "scheduled run", ...run });
    // Nothing is left: a second run does nothing.
    expect(await runScheduled(env)).toEqual({
      deadlines: { applied: 0, more: false },
      notificationsWoken: 0,
      tokensForgotten: 0,
      payouts: { closed: 0, more: false },
      paid: { told: 0, more: false },
      documentsMoved: { moved: 0, more: false },
      filesCollected: 0,
      archived: { archived: 0, more: false },
      partnersMoved: 0,
      failed: [],
    });
  });

  it("logs a task that fails with its cause, and the other tasks' work stands", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    await at(T0 + 73 * HOUR, partner);
    // The token records' table is gone for the run: that task fails, the deadlines' does not.
    await env.DB.exec("ALTER TABLE access_tokens RENAME TO access_tokens_away");
    const logged = vi.spyOn(console, "error");
    let run: Awaited<ReturnType<typeof runScheduled>>;
    try {
      run = await runScheduled(env);
    } finally {
      await env.DB.exec("ALTER TABLE access_tokens_away RENAME TO access_tokens");
    }
    expect(run).toMatchObject({ deadlines: { applied: 1 }, tokensForgotten: 0, failed: ["access tokens"] });
    expect((await events(created.id)).at(-1)).toMatchObject({ stateReason: "CANCELLED_EXPIRED" });
    const lines = logged.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(lines).toContainEqual({
      level: "error",
      message: "scheduled task failed",
      task: "access tokens",
      error: expect.objectContaining({ message: expect.stringContaining("access_tokens") }),
    });
    expect(lines).toContainEqual(expect.objectContaining({ level: "error", message: "scheduled run", ...run }));
  });

  it("runs the partner moves operators asked for, and records each one's report", async () => {
    const { partner, token } = await signIn({ shard: 0 });
    const created = await createApplication(token);
    const asked = Date.now();
    await env.DB.prepare(
      "INSERT INTO partner_move_requests (partner_id, to_shard, requested_at) VALUES (?, 1, ?), (?, 1, ?)",
    )
      .bind(partner.id, asked, "no-such-partner", asked)
      .run();

    const run = await runScheduled(env);

    expect(run).toMatchObject({ partnersMoved: 2, failed: [] });
    const reports = await env.DB.prepare(
      "SELECT partner_id, report FROM partner_move_requests WHERE finished_at IS NOT NULL ORDER BY partner_id = ?",
    )
      .bind(partner.id)
      .all<{ partner_id: string; report: string }>();
    expect(reports.results.map((r) => ({ partnerId: r.partner_id, report: JSON.parse(r.report) }))).toEqual([
      { partnerId: "no-such-partner", report: { error: "no partner no-such-partner" } },
      { partnerId: partner.id, report: expect.objectContaining({ from: 0, to: 1, partnerId: partner.id }) },
    ]);
    // The partner is on shard 1 now, and its token's requests go there.
    expect(await env.DB.prepare("SELECT shard FROM partners WHERE id = ?").bind(partner.id).first()).toEqual({
      shard: 1,
    });
    expect((await call("GET", `/financing/v1/applications/${created.id}`, { token })).status).toBe(200);
    expect(
      await env.SHARD_1!.prepare("SELECT 1 AS here FROM applications WHERE id = ?").bind(created.id).first(),
    ).toEqual({ here: 1 });
    // A later run finds nothing left to do.
    expect(await runScheduled(env)).toMatchObject({ partnersMoved: 0 });
  });
});
