import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/auth/crypto";
import { call, json, signIn } from "../support/api";
import { applicationRequest, createApplication } from "../support/factories";
import { app, approved, approvedWithTotal, oneItemOrder, put, shipped } from "../support/orders";
import { auditRows } from "../support/people";
import { dbOf } from "../support/shards";

const ADDRESS = "203.0.113.42";

/** The partner's entries of the API, as the log keeps them, after the set-up's own writes. */
async function apiEntries(partnerId: string, after = 0) {
  return (await auditRows(partnerId)).filter((r) => r.source === "API").slice(after);
}

/** Sends a write and answers the one entry it added to the log. */
async function oneEntry(partnerId: string, write: () => Promise<Response>, status: number) {
  const before = (await apiEntries(partnerId)).length;
  const res = await write();
  expect(res.status, await res.clone().text()).toBe(status);
  const added = await apiEntries(partnerId, before);
  expect(added).toHaveLength(1);
  return added[0]!;
}

describe("the API's writes in the audit log", () => {
  it("names the API and the token's id (the first 16 hex digits of its SHA-256), the address and the outcome", async () => {
    const { partner, token } = await signIn();
    const entry = await oneEntry(
      partner.id,
      () =>
        call("POST", "/financing/v1/applications", {
          token,
          body: applicationRequest(),
          headers: { "CF-Connecting-IP": ADDRESS },
        }),
      201,
    );
    expect(entry).toMatchObject({
      source: "API",
      actor_type: "API",
      actor_id: (await sha256Hex(token)).slice(0, 16),
      actor_name: null,
      operation: "createApplication",
      amount: applicationRequest().order.totalPrice.amount,
      currency: "CZK",
      address: ADDRESS,
      outcome: "SUCCEEDED",
      code: null,
    });
    expect(entry.application_id).toMatch(/^[0-9A-Z]{26}$/);
  });

  it("records each write once, with its figures: cancel, change, cancel items, send, deliver, return, refund, extend", async () => {
    const { partner, token } = await signIn();
    const toCancel = await approved(token);
    expect(
      await oneEntry(
        partner.id,
        () => put(token, `${app(toCancel)}/cancel`, { reason: "APPLICATION_CANCELLED_BY_CUSTOMER" }),
        200,
      ),
    ).toMatchObject({
      operation: "cancelApplication",
      application_id: toCancel,
      reason: "APPLICATION_CANCELLED_BY_CUSTOMER",
    });

    const toChange = await approved(token);
    const content = oneItemOrder(1000, 174, { code: "X", name: "X" });
    expect(
      await oneEntry(
        partner.id,
        () => put(token, `${app(toChange)}/order`, { reason: "swapped", order: content }),
        200,
      ),
    ).toMatchObject({ operation: "changeOrder", application_id: toChange });
    expect(await oneEntry(partner.id, () => put(token, `${app(toChange)}/authorization/extend`), 200)).toMatchObject({
      operation: "extendAuthorization",
      application_id: toChange,
    });
    expect(await oneEntry(partner.id, () => put(token, `${app(toChange)}/order/cancel`, {}), 200)).toMatchObject({
      operation: "cancelItems",
      application_id: toChange,
    });

    const id = await approvedWithTotal(token, 100000);
    expect(await oneEntry(partner.id, () => put(token, `${app(id)}/order/send`, {}), 200)).toMatchObject({
      operation: "sendItems",
    });
    expect(await oneEntry(partner.id, () => put(token, `${app(id)}/order/deliver`, {}), 200)).toMatchObject({
      operation: "deliverItems",
    });
    expect(
      await oneEntry(
        partner.id,
        () =>
          call("POST", `${app(id)}/refunds`, {
            token,
            body: { totalPrice: { amount: 2500, currency: "CZK" }, reason: "goodwill" },
          }),
        201,
      ),
    ).toMatchObject({
      operation: "createRefund",
      application_id: id,
      amount: 2500,
      currency: "CZK",
      reason: "goodwill",
      outcome: "SUCCEEDED",
    });
    // A return's refund is the amount it refunded, which the request did not say.
    expect(await oneEntry(partner.id, () => put(token, `${app(id)}/order/return`, {}), 200)).toMatchObject({
      operation: "returnItems",
      amount: 97500,
      currency: "CZK",
    });
  });

  it("records resend, replay, rotation and the sandbox's advance-time", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    const { data } = await json<{ data: { eventId: string }[] }>(
      await call("GET", `${app(created.id)}/notifications`, { token }),
    );
    expect(
      await oneEntry(
        partner.id,
        () => call("POST", `${app(created.id)}/notifications/${data[0]!.eventId}/resend`, { token }),
        202,
      ),
    ).toMatchObject({ operation: "resendNotification", application_id: created.id });
    expect(
      await oneEntry(
        partner.id,
        () => call("POST", "/financing/v1/notifications/replay", { token, body: { from: "2026-01-01T00:00:00Z" } }),
        202,
      ),
    ).toMatchObject({ operation: "replayNotifications" });
    const rotation = await oneEntry(
      partner.id,
      () => call("POST", "/financing/v1/notification-secret/rotate", { token }),
      200,
    );
    expect(rotation).toMatchObject({ operation: "rotateSigningSecret", outcome: "SUCCEEDED" });
    expect(
      await oneEntry(
        partner.id,
        () =>
          call("POST", `/financing/v1/sandbox/applications/${created.id}/advance-time`, {
            token,
            body: { seconds: 60 },
          }),
        200,
      ),
    ).toMatchObject({ operation: "advanceTime", application_id: created.id });
  });

  it("records a refusal of the rules with its code and what was asked", async () => {
    const { partner, token } = await signIn();
    const id = await shipped(token);
    const entry = await oneEntry(
      partner.id,
      () => call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 99999999, currency: "CZK" } } }),
      422,
    );
    expect(entry).toMatchObject({
      operation: "createRefund",
      application_id: id,
      amount: 99999999,
      outcome: "REFUSED",
      code: "REFUND_LIMIT_EXCEEDED",
    });
    const unknown = await oneEntry(
      partner.id,
      () => put(token, `${app("01JZZZZZZZZZZZZZZZZZZZZZZZ")}/cancel`, {}),
      404,
    );
    expect(unknown).toMatchObject({ operation: "cancelApplication", outcome: "REFUSED", code: "not_found" });
  });

  it("records a write answered again from its Idempotency-Key once, and nothing for reads, prechecks or malformed requests", async () => {
    const { partner, token } = await signIn();
    const id = await shipped(token);
    const before = (await apiEntries(partner.id)).length;
    const refund = () =>
      call("POST", `${app(id)}/refunds`, {
        token,
        body: { totalPrice: { amount: 100, currency: "CZK" } },
        headers: { "Idempotency-Key": "once-only" },
      });
    expect((await refund()).status).toBe(201);
    const replayed = await refund();
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    expect((await call("GET", app(id), { token })).status).toBe(200);
    expect(
      (await call("POST", "/financing/v1/precheck", { token, body: { totalPrice: { amount: 100, currency: "CZK" } } }))
        .status,
    ).toBe(200);
    expect((await call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: "lots" } } })).status).toBe(
      400,
    );
    expect(
      (await call("POST", `${app(id)}/refunds`, { body: { totalPrice: { amount: 1, currency: "CZK" } } })).status,
    ).toBe(401);
    expect((await apiEntries(partner.id, before)).map((r) => [r.operation, r.amount, r.outcome])).toEqual([
      ["createRefund", 100, "SUCCEEDED"],
    ]);
  });

  it("counts every entry against the partner's storage quota: a log that fills it refuses what would grow", async () => {
    const { partner, token } = await signIn();
    const auditBytes = async () =>
      (await dbOf(partner)
        .prepare("SELECT audit_bytes AS bytes FROM partners WHERE id = ?")
        .bind(partner.id)
        .first<{ bytes: number }>())!.bytes;
    const before = await auditBytes();
    await oneEntry(partner.id, () => call("POST", "/financing/v1/notification-secret/rotate", { token }), 200);
    const entry = (await auditBytes()) - before;
    expect(entry).toBeGreaterThan(100);
    expect(entry).toBeLessThan(1000);
    // The quota is what the rows hold and the log holds, together: nothing more may grow.
    await dbOf(partner)
      .prepare("UPDATE partners SET storage_quota_bytes = stored_bytes + audit_bytes WHERE id = ?")
      .bind(partner.id)
      .run();
    const refused = await call("POST", "/financing/v1/applications", { token, body: applicationRequest() });
    expect(refused.status).toBe(422);
    expect((await apiEntries(partner.id)).at(-1)).toMatchObject({
      operation: "createApplication",
      outcome: "REFUSED",
      code: "STORAGE_QUOTA_EXCEEDED",
    });
  });
});
