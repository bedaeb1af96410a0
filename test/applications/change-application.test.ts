import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { changeApplication } from "../../src/applications/change-application";
import { shardDatabase } from "../../src/db/client";
import { planDeliver, planRefund } from "../../src/domain/order-operations";
import { ApiError } from "../../src/http/errors";
import { signIn } from "../support/api";
import { DEADLINES } from "../support/domain";
import { eventsOf } from "../support/factories";
import { app, approved, order, put, shipped } from "../support/orders";

describe("racing operations", () => {
  it("parallel send and cancel: exactly one wins and the state is consistent", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const [send, cancel] = await Promise.all([put(token, `${app(id)}/order/send`), put(token, `${app(id)}/cancel`)]);
    expect([send.status, cancel.status].sort()).toEqual([200, 422]);
    const after = await order(token, id);
    if (send.status === 200) {
      expect(after.applicationInfo).toMatchObject({ state: "READY", stateReason: "READY_SHIPPED" });
      expect(after.state).toBe("SENT");
    } else {
      expect(after.applicationInfo).toMatchObject({ state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" });
      expect(after.state).toBe("CANCELLED");
    }
    expect(await eventsOf(id)).toHaveLength(2);
  });
});

describe("changeApplication", () => {
  /** The services of a change on the partner's shard (src/db/shards.ts). */
  const services = (partner: { shard: number }) => ({
    client: shardDatabase(env, partner.shard).$client,
    files: env.DOCUMENTS,
    archive: env.ARCHIVE,
    storageQuota: 1_000_000_000,
    deadlines: DEADLINES,
    notify: () => {},
    timeZone: "UTC",
  });

  it("runs a round that lost a race again on fresh state, and answers 409 CONCURRENT_MODIFICATION after 25", async () => {
    const { partner, token } = await signIn();
    const id = await shipped(token, [{ code: "BK-7" }]);
    let rounds = 0;
    const result = await changeApplication(services(partner), partner.id, id, (current, ctx) => {
      rounds++;
      // As if another request wrote between this round's read and its write: the guard refuses it.
      (current.application as { version: number }).version = -1;
      return planRefund(current, { totalPrice: { amount: 1, currency: "CZK" } }, ctx);
    });
    expect(rounds).toBe(25);
    expect(result).toMatchObject({ outcome: "refused", problems: [{ code: "CONCURRENT_MODIFICATION" }] });
    expect(ApiError.of(result.outcome === "refused" ? result.problems : [])).toMatchObject({
      status: 409,
      error: "conflict",
    });
    // Nothing of any round landed.
    expect((await order(token, id)).refundedPrice.amount).toBe(0);
  });

  it("hands the written event's wake-up to notify, and nothing for a change without an event", async () => {
    const { partner, token } = await signIn();
    const id = await shipped(token, [{ code: "BK-7" }]);
    const notified: unknown[] = [];
    const withNotify = { ...services(partner), notify: (messages: unknown[]) => notified.push(...messages) };
    const refund = await changeApplication(withNotify, partner.id, id, (current, ctx) =>
      planRefund(current, { totalPrice: { amount: 1, currency: "CZK" } }, ctx),
    );
    expect(refund.outcome).toBe("written");
    expect(notified).toEqual([]);
    const sent = await changeApplication(withNotify, partner.id, id, (current, ctx) =>
      planDeliver(current, { deliveryDate: "2026-11-23" }, ctx),
    );
    expect(sent.outcome === "written" && sent.plan.event).toBeTruthy();
    expect(notified).toEqual([
      { eventId: sent.outcome === "written" ? sent.plan.event!.id : "", due: expect.any(Number) },
    ]);
  });

  it("answers not_found for another partner's application", async () => {
    const owner = await signIn();
    // On the owner's shard: refused for whose it is, not for where it is.
    const other = await signIn({ shard: owner.partner.shard });
    const id = await approved(owner.token);
    const result = await changeApplication(services(owner.partner), other.partner.id, id, (current, ctx) =>
      planRefund(current, { totalPrice: { amount: 1, currency: "CZK" } }, ctx),
    );
    expect(result).toEqual({ outcome: "not_found" });
  });
});
