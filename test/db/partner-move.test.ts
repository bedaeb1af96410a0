/**
 * Moving a partner between the two local shards (src/db/partner-move.ts) while its traffic runs: every
 * request is answered success or "retry" (503 with Retry-After), every write answered success is on the
 * new shard, nothing of the partner stays on the old one, its clients go on with the same token, its
 * links still open, and the other shard's partner notices nothing.
 */
import { env } from "cloudflare:workers";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it, vi } from "vitest";
import { type MoveReport, movePartner, NOT_MOVED, PARTNER_TABLES } from "../../src/db/partner-move";
import * as schema from "../../src/db/schema";
import { shardBinding } from "../../src/db/shards";
import type { NotificationMessage } from "../../src/notifications/message";
import { moveSessions } from "../../src/rate-limit/partner-moved";
import { call, json, signIn } from "../support/api";
import { applicationRequest, createApplication } from "../support/factories";
import { browse } from "../support/gateway";
import { QUEUE, queueBatch, sweepEveryShard } from "../support/notifications";
import { app, shippedWithTotal } from "../support/orders";

const tableName = (table: SQLiteTable) => getTableConfig(table).name;

/** How a request of the traffic ended. */
interface Tally {
  requests: number;
  succeeded: number;
  retried: number;
  other: { status: number; body: string }[];
}

/** One request, answered success, or 503 with Retry-After and tried again (counted), or else recorded. */
async function until(tally: Tally, request: () => Promise<Response>): Promise<Response | null> {
  for (let attempt = 1; ; attempt++) {
    const res = await request();
    tally.requests++;
    if (res.status < 300) {
      tally.succeeded++;
      return res;
    }
    // A refusal that never ends is no "retry": after 100 it is recorded as the failure it is.
    if (res.status === 503 && res.headers.get("Retry-After") && attempt < 100) {
      tally.retried++;
      await res.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 5));
      continue;
    }
    tally.other.push({ status: res.status, body: await res.text() });
    return null;
  }
}

/**
 * The target, whose batches of the frozen copy wait (at most 5 s) until a client has met the freeze: a
 * copy this small would otherwise be over before a request lands in it, and the test would prove nothing
 * of the refusal under load. A real partner's frozen copy lasts far longer (docs/scaling.md).
 */
function waitingForAClient(target: D1Database, frozen: () => Promise<boolean>, met: () => boolean): D1Database {
  let waited = false;
  return new Proxy(target, {
    get(binding, prop) {
      const value = Reflect.get(binding, prop, binding);
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          if (!waited && (await frozen())) {
            waited = true;
            for (const end = Date.now() + 5_000; !met() && Date.now() < end; ) {
              await new Promise((resolve) => setTimeout(resolve, 10));
            }
          }
          return binding.batch(statements);
        };
      }
      return typeof value === "function" ? value.bind(binding) : value;
    },
  });
}

/** The partner's rows on a shard, per table (the partner row apart: the directory keeps its own). */
async function rowsOn(db: D1Database, partnerId: string) {
  const counts: Record<string, number> = {};
  for (const { table, where } of PARTNER_TABLES) {
    const name = tableName(table);
    if (name === "partners") continue;
    const row = await db
      .prepare(`SELECT COUNT(*) AS n FROM ${name} WHERE ${where}`)
      .bind(partnerId)
      .first<{ n: number }>();
    counts[name] = row!.n;
  }
  return counts;
}

describe("moving a partner between shards", () => {
  it("covers every table of the schema: moved with the partner, or named as not the partner's", () => {
    const tables = Object.values(schema)
      .filter((value) => is(value, SQLiteTable))
      .map((table) => tableName(table as SQLiteTable))
      .sort();
    const covered = [...PARTNER_TABLES.map(({ table }) => tableName(table)), ...Object.keys(NOT_MOVED)].sort();
    expect(covered).toEqual(tables);
  });

  it.each([
    [0, 1],
    [1, 0],
  ])("moves a partner from shard %i to %i under load: no request lost, no write lost", async (from, to) => {
    const { partner, token } = await signIn({ shard: from });
    const other = await signIn({ shard: to });
    const othersApplication = await createApplication(other.token);
    const source = shardBinding(env, from);
    const target = shardBinding(env, to);

    // Before the move: applications sent (refundable), and a link handed out naming the old shard.
    // One per client: two clients refunding one application would race for it (its version), and one lose.
    const shippedIds: string[] = [];
    for (let n = 0; n < 4; n++) shippedIds.push(await shippedWithTotal(token, 100_000));
    const linked = await createApplication(token);
    const settledBefore = await source
      .prepare("SELECT id, amount, payout_id FROM settlement_entries WHERE partner_id = ? ORDER BY id")
      .bind(partner.id)
      .all();

    // The traffic: four clients creating, changing, refunding and reading until the move is done.
    const tally: Tally = { requests: 0, succeeded: 0, retried: 0, other: [] };
    const created: string[] = [];
    const refunds: string[] = [];
    let moving = true;
    const cancelled: string[] = [];
    const client = async (n: number) => {
      for (let round = 0; moving || round < 3; round++) {
        const res = await until(tally, () =>
          call("POST", "/financing/v1/applications", { token, body: applicationRequest() }),
        );
        const id = res ? (await json<{ id: string }>(res)).id : null;
        if (id) created.push(id);
        const refund = await until(tally, () =>
          call("POST", `${app(shippedIds[n]!)}/refunds`, {
            token,
            body: { totalPrice: { amount: 100, currency: "CZK" } },
          }),
        );
        if (refund) refunds.push((await json<{ id: string }>(refund)).id);
        await until(tally, () => call("GET", app(shippedIds[(n + 1) % 4]!), { token }));
        // Each client cancels its own application: two clients on one would race, and one would lose (409).
        if (
          id &&
          round % 2 === 0 &&
          (await until(tally, () => call("PUT", `${app(id)}/cancel`, { token, body: {} })))
        ) {
          cancelled.push(id);
        }
        await until(tally, () => call("GET", "/financing/v1/applications?limit=5", { token }));
      }
    };
    const frozen = async () =>
      (await source
        .prepare("SELECT 1 FROM partner_moves WHERE partner_id = ? AND to_shard IS NULL")
        .bind(partner.id)
        .first()) !== null;
    const traffic = Promise.all([0, 1, 2, 3].map(client));
    await new Promise((resolve) => setTimeout(resolve, 30));
    const report: MoveReport = await movePartner(
      {
        directory: env.DB,
        from: { shard: from, binding: source },
        to: { shard: to, binding: waitingForAClient(target, frozen, () => tally.retried > 0) },
      },
      partner.id,
      { switched: (id, shard) => moveSessions(env, id, shard, Date.now()), graceMs: 500 },
    );
    moving = false;
    await traffic;

    // Every request answered success or "retry"; every write answered success is on the new shard.
    expect(tally.other).toEqual([]);
    expect(tally.succeeded).toBeGreaterThan(0);
    // The clients did meet the freeze: some of their requests were answered "retry".
    expect(tally.retried).toBeGreaterThan(0);
    const present = async (table: string, ids: string[]) =>
      ids.length === 0
        ? 0
        : (await target
            .prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE id IN (SELECT value FROM json_each(?))`)
            .bind(JSON.stringify(ids))
            .first<{ n: number }>())!.n;
    expect(await present("applications", created)).toBe(created.length);
    expect(await present("refunds", refunds)).toBe(refunds.length);
    const stillCancelled = await target
      .prepare(
        "SELECT COUNT(*) AS n FROM applications WHERE state = 'CANCELLED' AND id IN (SELECT value FROM json_each(?))",
      )
      .bind(JSON.stringify(cancelled))
      .first<{ n: number }>();
    expect(stillCancelled!.n).toBe(cancelled.length);

    // Nothing of the partner is left on the old shard; the directory names the new one.
    expect(Object.values(await rowsOn(source, partner.id)).every((n) => n === 0)).toBe(true);
    const listed = await env.DB.prepare("SELECT shard FROM partners WHERE id = ?").bind(partner.id).first();
    expect(listed).toEqual({ shard: to });

    // Money: refunds add up on each application and stay within what was financed and approved; the
    // settlement entries from before the move are there unchanged.
    const money = await target
      .prepare(
        `SELECT a.id, a.refunded_amount AS refunded, a.total_amount AS financed, a.approved_amount AS approved,
         (SELECT COALESCE(SUM(amount), 0) FROM refunds r WHERE r.application_id = a.id) AS refundsSum
         FROM applications a WHERE a.partner_id = ?`,
      )
      .bind(partner.id)
      .all<{ refunded: number; financed: number; approved: number | null; refundsSum: number }>();
    for (const row of money.results) {
      expect(row.refunded).toBe(row.refundsSum);
      expect(row.refunded).toBeGreaterThanOrEqual(0);
      expect(row.refunded).toBeLessThanOrEqual(row.approved ?? row.financed);
    }
    const settledAfter = await target
      .prepare(
        "SELECT id, amount, payout_id FROM settlement_entries WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
      )
      .bind(JSON.stringify(settledBefore.results.map((e) => e.id)))
      .all();
    expect(settledAfter.results).toEqual(settledBefore.results);

    // The partner's client goes on with the same token, on the new shard; its link still opens.
    const after = await createApplication(token);
    expect(await target.prepare("SELECT 1 AS found FROM applications WHERE id = ?").bind(after.id).first()).toEqual({
      found: 1,
    });
    expect((await call("GET", app(linked.id), { token })).status).toBe(200);
    expect((await browse(linked.gatewayRedirectUrl)).status).toBeLessThan(400);
    // The other partner, on the new shard all along, notices nothing.
    expect((await call("GET", app(othersApplication.id), { token: other.token })).status).toBe(200);

    console.log(
      `move ${from}→${to}: ${tally.requests} requests during the move, ${tally.succeeded} succeeded, ` +
        `${tally.retried} answered 503 and retried; ${created.length} creates and ${refunds.length} refunds ` +
        `and ${cancelled.length} cancels answered success, all on the new shard; ${report.copied} rows copied, ${report.recopied} copied frozen, ` +
        `${report.deleted} deleted from the old shard; frozen ${report.frozenMs} ms`,
    );
  });

  it("leaves a queue message naming the old shard nothing to do there: the sweep wakes the event on the new one", async () => {
    const { partner, token } = await signIn({ shard: 0 });
    const created = await createApplication(token);
    const event = await env.DB.prepare("SELECT id FROM events WHERE application_id = ?")
      .bind(created.id)
      .first<{ id: string }>();
    await movePartner(
      { directory: env.DB, from: { shard: 0, binding: env.DB }, to: { shard: 1, binding: env.SHARD_1! } },
      partner.id,
    );

    const sent: NotificationMessage[] = [];
    vi.spyOn(env.NOTIFICATIONS, "sendBatch").mockImplementation(async (messages) => {
      sent.push(...[...messages].map((m) => m.body as NotificationMessage));
      return undefined as never;
    });
    // Acknowledged, not retried: the old shard holds nothing of the partner's any more.
    const result = await queueBatch(QUEUE, [{ body: { eventId: event!.id, shard: 0 } }]);
    expect(result.retryMessages).toEqual([]);
    const moved = await env
      .SHARD_1!.prepare("SELECT status, failed_attempts FROM events WHERE id = ?")
      .bind(event!.id)
      .first();
    expect(moved).toEqual({ status: "PENDING", failed_attempts: 0 });
    // Once overdue, the sweep of the new shard wakes it, with a message naming that shard.
    await env
      .SHARD_1!.prepare("UPDATE events SET next_attempt_at = ? WHERE id = ?")
      .bind(Date.now() - 3_600_000, event!.id)
      .run();
    expect(await sweepEveryShard()).toBeGreaterThanOrEqual(1);
    expect(sent).toContainEqual(expect.objectContaining({ eventId: event!.id, shard: 1 }));
  });

  it("has a session the move did not reach follow it on its next write: answered 503, and the retry lands on the new shard", async () => {
    const { partner, token } = await signIn({ shard: 1 });
    // Moved without telling the sessions, as the command does beside a running server (docs/operations.md).
    await movePartner(
      { directory: env.DB, from: { shard: 1, binding: env.SHARD_1! }, to: { shard: 0, binding: env.DB } },
      partner.id,
    );
    const refused = await call("POST", "/financing/v1/applications", { token, body: applicationRequest() });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("Retry-After")).toBe("1");
    const retried = await call("POST", "/financing/v1/applications", { token, body: applicationRequest() });
    expect(retried.status).toBe(201);
    const { id } = await json<{ id: string }>(retried);
    expect(await env.DB.prepare("SELECT partner_id FROM applications WHERE id = ?").bind(id).first()).toEqual({
      partner_id: partner.id,
    });
  });
});
