/**
 * Sends, returns and refunds racing payouts that close at the same moment (CONTRACT 6b): every entry is
 * entered once, lands in exactly one payout, and each payout pays exactly what it holds.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { shardDatabase } from "../../src/db/client";
import { MARK_PAYOUT } from "../../src/db/payout-mark";
import { closePayout } from "../../src/settlement/payouts";
import { call, signIn } from "../support/api";
import { app, approved, order, put } from "../support/orders";
import { closeNow } from "../support/settlement-api";
import { dbOf, rowsOverShards } from "../support/shards";

const HOUR = 3_600_000;

/** The rows of every shard (test/support/shards.ts): this file's queries name the partner. */
const rows = <T>(sql: string, ...bind: unknown[]): Promise<T[]> => rowsOverShards<T>(sql, ...bind);

describe("payouts closing while operations write entries", () => {
  it("lose no entry and put none in two payouts; each pays the sum of what it holds", async () => {
    const { token, partner } = await signIn();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await approved(token));
    for (const id of ids) await put(token, `${app(id)}/order/send`, { items: [{ code: "KB-01" }] });

    // On the partner's shard, as the cron closes it (src/scheduled.ts).
    const db = shardDatabase(env, partner.shard);
    const close = () =>
      closePayout(db, db.$client, { partnerId: partner.id, currency: "CZK", periodEnd: Date.now() + HOUR }, Date.now());
    const racing = await Promise.all([
      ...ids.map((id) => put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] })),
      ...ids
        .slice(0, 3)
        .map((id) => put(token, `${app(id)}/order/return`, { items: [{ code: "KB-01", quantity: 1 }] })),
      ...ids
        .slice(3)
        .map((id) =>
          call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 1000, currency: "CZK" } } }),
        ),
      close(),
      close(),
      closeNow(token),
      close(),
    ]);
    const answers = racing.filter((r): r is Response => r instanceof Response);
    expect(answers.map((r) => r.status).sort()).toEqual([...Array(9).fill(200), ...Array(3).fill(201)].sort());

    // One payout fails: its entries go back, and the last closing pays them with whatever is left.
    const [someone] = await rows<{ id: string }>(
      "SELECT id FROM payouts WHERE partner_id = ? AND status = 'PENDING' LIMIT 1",
      partner.id,
    );
    if (someone) await dbOf(partner).prepare(MARK_PAYOUT).bind("FAILED", null, someone.id).run();
    await close();

    const entries = await rows<{
      id: string;
      amount: number;
      payout_id: string | null;
      application_id: string;
      type: string;
    }>("SELECT id, amount, payout_id, application_id, type FROM settlement_entries WHERE partner_id = ?", partner.id);
    expect(entries.every((e) => e.payout_id !== null)).toBe(true);
    const live = await rows<{ id: string; net: number; entries: number }>(
      "SELECT id, net, entries FROM payouts WHERE partner_id = ? AND status <> 'FAILED'",
      partner.id,
    );
    // Each entry in exactly one payout that stands, and each payout's net the sum of what it holds.
    const held = await rows<{ payout_id: string; entry_id: string }>(
      "SELECT pe.payout_id, pe.entry_id FROM payout_entries pe JOIN payouts p ON p.id = pe.payout_id WHERE p.partner_id = ? AND p.status <> 'FAILED'",
      partner.id,
    );
    expect(held.map((h) => h.entry_id).sort()).toEqual(entries.map((e) => e.id).sort());
    for (const payout of live) {
      const mine = entries.filter((e) => e.payout_id === payout.id);
      expect(mine.length).toBe(payout.entries);
      expect(mine.reduce((sum, e) => sum + e.amount, 0)).toBe(payout.net);
    }
    // Per application, the sales are what went out and the refunds what was refunded.
    for (const id of ids) {
      const view = await order(token, id);
      const out = view.items.filter((i) => ["SENT", "DELIVERED", "RETURNED"].includes(i.state));
      const mine = entries.filter((e) => e.application_id === id);
      const sum = (type: string) => mine.filter((e) => e.type === type).reduce((s, e) => s + e.amount, 0);
      expect(sum("SALE")).toBe(out.reduce((s, i) => s + i.totalPrice.amount, 0));
      expect(sum("REFUND")).toBe(-view.refundedPrice.amount);
    }
  });
});
