/**
 * Consent bound to the offer: the customer's confirm (or cancel) decides only the offer the page showed
 * them. A change of the order while the page is open, in this tab or another, or a new day (the due
 * dates move) makes the answer decide nothing; the new offer is shown, and confirming it decides it.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, json, signIn } from "../support/api";
import { createApplication, eventsOf } from "../support/factories";
import { hiddenFields, openGateway, postGateway, requestWithTotal, storedDecision } from "../support/gateway";
import { dbOfApplication } from "../support/shards";

const CREATED = { sequence: 1, state: "PROCESSING", stateReason: "PROCESSING_REDIRECT_NEEDED" };

afterEach(() => {
  vi.useRealTimers();
});

/** The partner replaces the order with one item of `amount` (CZK) while the customer looks at the page. */
async function changeOrder(token: string, applicationId: string, amount: number) {
  const res = await call("PUT", `/financing/v1/applications/${applicationId}/order`, {
    token,
    body: { reason: "cart changed", order: requestWithTotal(amount).order },
  });
  expect(res.status).toBe(200);
}

async function acceptedOffer(applicationId: string) {
  const row = await (await dbOfApplication(applicationId))
    .prepare("SELECT accepted_offer AS offer FROM applications WHERE id = ?")
    .bind(applicationId)
    .first<{ offer: string | null }>();
  return row?.offer === null || row === null ? null : JSON.parse(row.offer);
}

describe("POST /gateway/{applicationId}/{token}: consent bound to the offer shown", () => {
  it("does not approve 49,999.00 with the form of a page that showed 1,000.00; it shows the new offer, which then decides", async () => {
    const { token } = await signIn();
    const app = await createApplication(token, requestWithTotal(100_000));
    const shown = await openGateway(app.gatewayRedirectUrl);
    expect(shown.text).toContain("CZK 1,000.00");

    await changeOrder(token, app.id, 4_999_900);
    const stale = await postGateway(app.gatewayRedirectUrl, {
      ...hiddenFields(shown.html),
      action: "confirm",
      agreement: "yes",
    });

    expect(stale.status).toBe(409);
    const again = { html: await stale.text() };
    expect(again.html).toContain("The order changed");
    expect(again.html.replace(/[\u00a0\u202f]/g, " ")).toContain("CZK 49,999.00");
    expect(again.html).toContain('name="action" value="confirm"');
    expect(await storedDecision(app.id)).toMatchObject({
      state: "PROCESSING",
      approvedAmount: null,
      decidedAt: null,
    });
    expect(await acceptedOffer(app.id)).toBeNull();
    expect(await eventsOf(app.id)).toEqual([CREATED]);

    // The customer confirms the offer now shown: that one is decided, and recorded as accepted.
    const confirmed = await postGateway(app.gatewayRedirectUrl, {
      ...hiddenFields(again.html),
      action: "confirm",
      agreement: "yes",
    });
    expect(confirmed.status).toBe(303);
    expect(await storedDecision(app.id)).toMatchObject({ state: "READY", approvedAmount: 4_999_900 });
    expect(await acceptedOffer(app.id)).toMatchObject({
      type: "DEFERRED_PAYMENT",
      currency: "CZK",
      total: 4_999_900,
      items: [{ code: "LAMP-1", name: "Desk lamp", quantity: 1, total: 4_999_900 }],
      instalments: [{ number: 1, amount: 4_999_900 }],
    });
  });

  it("holds across tabs: the tab opened before the change decides nothing, the one opened after decides", async () => {
    const { token } = await signIn();
    const app = await createApplication(token, requestWithTotal(100_000));
    const before = hiddenFields((await openGateway(app.gatewayRedirectUrl)).html);
    await changeOrder(token, app.id, 250_000);
    const after = hiddenFields((await openGateway(app.gatewayRedirectUrl)).html);
    expect(after.offer).not.toBe(before.offer);

    expect((await postGateway(app.gatewayRedirectUrl, { ...before, action: "confirm" })).status).toBe(409);
    expect((await postGateway(app.gatewayRedirectUrl, { ...after, action: "confirm" })).status).toBe(303);
    const read = await json<{ state: string; order: { totalPrice: { amount: number } } }>(
      await call("GET", `/financing/v1/applications/${app.id}`, { token }),
    );
    expect(read).toMatchObject({ state: "READY", order: { totalPrice: { amount: 250_000 } } });
  });

  it("does not cancel for a changed offer either", async () => {
    const { token } = await signIn();
    const app = await createApplication(token, requestWithTotal(100_000));
    const shown = hiddenFields((await openGateway(app.gatewayRedirectUrl)).html);
    await changeOrder(token, app.id, 90_000);

    const res = await postGateway(app.gatewayRedirectUrl, { ...shown, action: "cancel" });

    expect(res.status).toBe(409);
    expect(await storedDecision(app.id)).toMatchObject({ state: "PROCESSING", cancelReason: null });
    expect(await eventsOf(app.id)).toEqual([CREATED]);
  });

  it("decides nothing for a form without the offer's token (a hand-made post)", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);

    const res = await postGateway(app.gatewayRedirectUrl, { action: "confirm", agreement: "yes" });

    expect(res.status).toBe(409);
    expect(await res.text()).toContain("The order changed");
    expect(await storedDecision(app.id)).toMatchObject({ state: "PROCESSING", decidedAt: null });
  });

  it("shows new due dates when the day changed before the customer confirmed", async () => {
    const { token } = await signIn();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-23T23:59:50Z"));
    const app = await createApplication(token, requestWithTotal(90_000, { type: "PAY_IN_THREE" }));
    const shown = await openGateway(app.gatewayRedirectUrl);
    expect(shown.text).toContain("due 2026-11-23");

    vi.setSystemTime(new Date("2026-11-24T00:00:10Z"));
    const res = await postGateway(app.gatewayRedirectUrl, { ...hiddenFields(shown.html), action: "confirm" });

    expect(res.status).toBe(409);
    expect(await res.text()).toContain('datetime="2026-11-24"');
    expect(await storedDecision(app.id)).toMatchObject({ state: "PROCESSING" });
  });

  it("never approves more than the page showed while the partner's change races the confirm", async () => {
    const { token } = await signIn();
    for (let round = 0; round < 5; round++) {
      const app = await createApplication(token, requestWithTotal(100_000));
      const shown = hiddenFields((await openGateway(app.gatewayRedirectUrl)).html);
      const [confirm, change] = await Promise.all([
        postGateway(app.gatewayRedirectUrl, { ...shown, action: "confirm" }),
        call("PUT", `/financing/v1/applications/${app.id}/order`, {
          token,
          body: { reason: "cart changed", order: requestWithTotal(250_000).order },
        }),
      ]);
      const decision = await storedDecision(app.id);
      if (confirm.status === 303) {
        // The confirm won: what the page showed is approved, and a raise above it is refused.
        expect(decision).toMatchObject({ state: "READY", approvedAmount: 100_000 });
        expect(change.status).toBe(422);
        expect(await acceptedOffer(app.id)).toMatchObject({ total: 100_000 });
      } else {
        // The change won: nothing is decided until the customer sees the new offer.
        expect(confirm.status).toBe(409);
        expect(change.status).toBe(200);
        expect(decision).toMatchObject({ state: "PROCESSING", approvedAmount: null });
      }
    }
  });
});
