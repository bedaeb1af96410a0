import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { RESEND_LIMIT, RESEND_WINDOW_SECONDS } from "../../src/notifications/redelivery";
import { signIn } from "../support/api";
import { type ConsoleBrowser, formFields, signedInBrowser } from "../support/console";
import { applicationRequest, countRows, createApplication } from "../support/factories";
import { submitGateway } from "../support/gateway";
import { firstEvent, T0, useNotificationHarness } from "../support/notifications";
import { approvedWithTotal, shippedWithTotal } from "../support/orders";
import { dbOfApplication } from "../support/shards";

useNotificationHarness();

const page = (id: string) => `/console/applications/${id}`;

/** Fills in the action's form on the application page and sends it: the confirmation page (or a refusal). */
async function ask(browser: ConsoleBrowser, id: string, action: string, fields: Record<string, string> = {}) {
  return browser.submit(page(id), `${page(id)}/${action}`, fields);
}

/** Asks, then confirms with the confirmation page's form: the answer to the confirming post, and its fields. */
async function askAndConfirm(browser: ConsoleBrowser, id: string, action: string, fields: Record<string, string> = {}) {
  const confirmation = await ask(browser, id, action, fields);
  expect(confirmation.status).toBe(200);
  const confirmFields = formFields(confirmation.html, `${page(id)}/${action}`);
  return { res: await browser.post(`${page(id)}/${action}`, confirmFields), confirmation, confirmFields };
}

async function stored(id: string) {
  return (await dbOfApplication(id))
    .prepare(
      "SELECT state, state_reason AS stateReason, refunded_amount AS refunded, expires_at AS expiresAt FROM applications WHERE id = ?",
    )
    .bind(id)
    .first<{ state: string; stateReason: string; refunded: number; expiresAt: number | null }>();
}

describe("actions on an application", () => {
  it("refunds part of it after confirmation: the refund, the money, and what the page says", async () => {
    const { partner, token } = await signIn();
    const id = await shippedWithTotal(token, 100000);
    const browser = await signedInBrowser(partner);
    const confirmation = await ask(browser, id, "refund", { amount: "250.50", reason: "scratched box" });
    expect(confirmation.status).toBe(200);
    expect(confirmation.text).toContain("Confirm refund?");
    expect(confirmation.text).toContain("Refund CZK 250.50 of order");
    expect(confirmation.text).toContain("Afterwards CZK 250.50 will have been refunded in all.");
    const confirmFields = formFields(confirmation.html, `${page(id)}/refund`);
    expect(confirmFields).toMatchObject({ amount: "250.50", reason: "scratched box" });
    expect(confirmFields.once).toMatch(/^[A-Za-z0-9_-]{22}$/);
    // Asking wrote nothing: no refund, no money moved, the form's token not yet used.
    expect(await countRows("refunds", "application_id = ?", id)).toBe(0);
    expect((await stored(id))!.refunded).toBe(0);
    expect(await countRows("idempotency_keys", "partner_id = ?", partner.id)).toBe(0);
    const res = await browser.post(`${page(id)}/refund`, confirmFields);
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${page(id)}?done=refund`);
    const after = await browser.get(res.location!);
    expect(after.text).toContain("The refund was created.");
    expect(after.text).toMatch(/Refunded CZK 250\.50 Refundable CZK 749\.50/);
    expect(after.text).toMatch(/CZK 250\.50 REFUND scratched box/);
    expect((await stored(id))!.refunded).toBe(25050);
    const refunds = await (await dbOfApplication(id))
      .prepare("SELECT amount, origin, reason FROM refunds WHERE application_id = ?")
      .bind(id)
      .all();
    expect(refunds.results).toEqual([{ amount: 25050, origin: "REFUND", reason: "scratched box" }]);
  });

  it("refunds once however often the confirming form is sent: a double-click answers the first answer", async () => {
    const { partner, token } = await signIn();
    const id = await shippedWithTotal(token, 100000);
    const browser = await signedInBrowser(partner);
    const confirmation = await ask(browser, id, "refund", { amount: "100" });
    const fields = formFields(confirmation.html, `${page(id)}/refund`);
    const answers = await Promise.all([1, 2, 3].map(() => browser.post(`${page(id)}/refund`, fields)));
    for (const answer of answers) {
      expect(answer.status).toBe(303);
      expect(answer.location).toBe(`${page(id)}?done=refund`);
    }
    // The same confirmation again later (a browser resending it): still the first answer, still one refund.
    expect((await browser.post(`${page(id)}/refund`, fields)).headers.get("Idempotent-Replayed")).toBe("true");
    // A confirmation page shown anew (a reload, the back button: the ask is posted again) is a new form.
    const anew = await ask(browser, id, "refund", { amount: "100" });
    expect(formFields(anew.html, `${page(id)}/refund`).once).not.toBe(fields.once);
    expect(await countRows("refunds", "application_id = ?", id)).toBe(1);
    expect((await stored(id))!.refunded).toBe(10000);
    // The form's token is the partner's idempotency key: another session's key space is the partner's too.
    expect(
      await countRows("idempotency_keys", "partner_id = ? AND key = ?", partner.id, `console:${fields.once}`),
    ).toBe(1);
  });

  it("shows the domain's refusal in words and changes nothing: a refund above what is refundable", async () => {
    const { partner, token } = await signIn();
    const id = await shippedWithTotal(token, 100000);
    const browser = await signedInBrowser(partner);
    const res = await ask(browser, id, "refund", { amount: "1000.01" });
    expect(res.status).toBe(422);
    expect(res.text).toContain("Refund: refused");
    expect(res.text).toContain(
      "The amount is more than can still be refunded: at most CZK 1,000.00. (REFUND_LIMIT_EXCEEDED)",
    );
    expect(await countRows("refunds", "application_id = ?", id)).toBe(0);
  });

  it("refuses what is not an amount, saying what it wants", async () => {
    const { partner, token } = await signIn();
    const id = await shippedWithTotal(token, 100000);
    const res = await ask(await signedInBrowser(partner), id, "refund", { amount: "ten crowns" });
    expect(res.status).toBe(422);
    expect(res.text).toContain("Refund: Enter the amount to refund, such as 150.00.");
  });

  it("refuses a refund of nothing in its own words, not as one above what is refundable", async () => {
    const { partner, token } = await signIn();
    const id = await shippedWithTotal(token, 100000);
    const res = await ask(await signedInBrowser(partner), id, "refund", { amount: "0.00" });
    expect(res.status).toBe(422);
    expect(res.text).toContain("Refund: Enter an amount of at least 0.01.");
    expect(await countRows("refunds", "application_id = ?", id)).toBe(0);
  });

  it("cancels with the API's default reason when the form sends none", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    const browser = await signedInBrowser(partner);
    const { reason: _, ...withoutReason } = formFields(
      (await browser.get(page(created.id))).html,
      `${page(created.id)}/cancel`,
    );
    const confirmation = await browser.post(`${page(created.id)}/cancel`, withoutReason);
    expect(confirmation.status).toBe(200);
    expect(confirmation.text).toContain("Reason: APPLICATION_CANCELLED_OTHER");
    const res = await browser.post(
      `${page(created.id)}/cancel`,
      formFields(confirmation.html, `${page(created.id)}/cancel`),
    );
    expect(res.status).toBe(303);
    const row = await (await dbOfApplication(created.id))
      .prepare("SELECT state, cancel_reason AS reason FROM applications WHERE id = ?")
      .bind(created.id)
      .first();
    expect(row).toEqual({ state: "CANCELLED", reason: "APPLICATION_CANCELLED_OTHER" });
  });

  it("refuses a reason or a note longer than the API takes, and stores nothing", async () => {
    const { partner, token } = await signIn();
    const id = await shippedWithTotal(token, 100000);
    const browser = await signedInBrowser(partner);
    const refund = await ask(browser, id, "refund", { amount: "100", reason: "x".repeat(501) });
    expect(refund.status).toBe(422);
    expect(refund.text).toContain("Refund: The reason may be at most 500 characters.");
    expect(await countRows("refunds", "application_id = ?", id)).toBe(0);
    // At the limit, the confirmation page is shown.
    expect((await ask(browser, id, "refund", { amount: "100", reason: "x".repeat(500) })).status).toBe(200);
    const waiting = await approvedWithTotal(token, 100000);
    const cancel = await ask(browser, waiting, "cancel", {
      reason: "APPLICATION_CANCELLED_OTHER",
      note: "x".repeat(501),
    });
    expect(cancel.status).toBe(422);
    expect(cancel.text).toContain("The note may be at most 500 characters.");
    expect((await stored(waiting))!.state).toBe("READY");
  });

  it("refuses at confirmation what became impossible after asking, in words", async () => {
    const { partner, token } = await signIn();
    const id = await shippedWithTotal(token, 100000);
    const browser = await signedInBrowser(partner);
    const first = formFields((await ask(browser, id, "refund", { amount: "800" })).html, `${page(id)}/refund`);
    const second = formFields((await ask(browser, id, "refund", { amount: "800" })).html, `${page(id)}/refund`);
    expect((await browser.post(`${page(id)}/refund`, first)).status).toBe(303);
    const refused = await browser.post(`${page(id)}/refund`, second);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain("at most CZK 200.00. (REFUND_LIMIT_EXCEEDED)");
    expect((await stored(id))!.refunded).toBe(80000);
  });

  it("cancels with a reason after confirmation", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    const browser = await signedInBrowser(partner);
    const { res, confirmation } = await askAndConfirm(browser, created.id, "cancel", {
      reason: "APPLICATION_CANCELLED_BY_CUSTOMER",
      note: "called us",
    });
    expect(confirmation.text).toContain("Reason: APPLICATION_CANCELLED_BY_CUSTOMER (called us)");
    expect(res.status).toBe(303);
    expect(await stored(created.id)).toMatchObject({ state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" });
    const row = await (await dbOfApplication(created.id))
      .prepare("SELECT cancel_reason AS r, custom_cancel_reason AS c FROM applications WHERE id = ?")
      .bind(created.id)
      .first();
    expect(row).toEqual({ r: "APPLICATION_CANCELLED_BY_CUSTOMER", c: "called us" });
  });

  it("marks the whole order sent after confirmation, and its notification appears", async () => {
    const { partner, token } = await signIn();
    const id = await approvedWithTotal(token, 100000);
    const browser = await signedInBrowser(partner);
    const { res } = await askAndConfirm(browser, id, "send");
    expect(res.status).toBe(303);
    expect(await stored(id)).toMatchObject({ state: "READY", stateReason: "READY_SHIPPED" });
    const after = await browser.get(res.location!);
    expect(after.text).toContain("The whole order is marked sent.");
    expect(after.text).toContain("APPLICATION_STATE_CHANGED READY READY_SHIPPED Delivery: PENDING");
    // Nothing is left to send: the action is no longer offered, and the page says why.
    expect(after.html).not.toContain(`action="${page(id)}/send"`);
    expect(after.text).toContain("Mark the whole order sent Not possible now:");
  });

  it("extends the authorization of an approved application that has a deadline", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token, applicationRequest());
    expect((await submitGateway(created.gatewayRedirectUrl, { action: "confirm" })).status).toBe(303);
    const before = (await stored(created.id))!.expiresAt!;
    vi.setSystemTime(T0.getTime() + 10 * 86_400_000);
    const browser = await signedInBrowser(partner);
    const { res, confirmation } = await askAndConfirm(browser, created.id, "extend");
    expect(confirmation.text).toMatch(/stay financed longer: until \d{4}-\d{2}-\d{2} \d{2}:\d{2} instead of/);
    expect(res.status).toBe(303);
    expect((await stored(created.id))!.expiresAt).toBe(T0.getTime() + 10 * 86_400_000 + 28 * 86_400_000);
    expect((await stored(created.id))!.expiresAt).toBeGreaterThan(before);
  });

  it("is not found for another partner's application, asked or confirmed, and changes nothing there", async () => {
    const { token } = await signIn();
    const foreign = await approvedWithTotal(token, 100000);
    const browser = await signedInBrowser((await signIn()).partner);
    // The session's own CSRF token (every page of it carries one), aimed at the other partner's application.
    const { csrf } = formFields(
      (await browser.get("/console/notifications")).html,
      "/console/notification-secret/rotate",
    );
    for (const fields of [{ amount: "10" }, { amount: "10", once: "A".repeat(22) }] as Record<string, string>[]) {
      const res = await browser.post(`${page(foreign)}/refund`, { csrf: csrf!, ...fields });
      expect(res.status).toBe(404);
      expect(res.text).toContain("Not found");
    }
    expect(await countRows("refunds", "application_id = ?", foreign)).toBe(0);
  });

  it("resends an event once per form, and says when a delivered one was sent again within the hour", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    const event = await firstEvent(created.id);
    await (await dbOfApplication(created.id))
      .prepare("UPDATE events SET status = 'DELIVERED', next_attempt_at = NULL, delivered_at = ? WHERE id = ?")
      .bind(T0.getTime(), event.id)
      .run();
    const sent = vi.spyOn(env.NOTIFICATIONS, "send").mockResolvedValue(undefined as never);
    const browser = await signedInBrowser(partner);
    const action = `${page(created.id)}/notifications/${event.id}/resend`;
    const fields = formFields((await browser.get(page(created.id))).html, action);
    const [first, second] = await Promise.all([browser.post(action, fields), browser.post(action, fields)]);
    for (const answer of [first, second])
      expect(answer.location).toBe(`${page(created.id)}?done=resend#event-${event.id}`);
    expect(sent).toHaveBeenCalledTimes(1);
    expect((await firstEvent(created.id)).status).toBe("PENDING");
    // Delivered again, then asked again within the hour: refused in words.
    await (await dbOfApplication(created.id))
      .prepare("UPDATE events SET status = 'DELIVERED', next_attempt_at = NULL WHERE id = ?")
      .bind(event.id)
      .run();
    const again = await browser.submit(page(created.id), action);
    expect(again.status).toBe(429);
    expect(again.text).toContain("already sent again within the hour");
    expect(sent).toHaveBeenCalledTimes(1);
  });

  it(`refuses a resend past the partner's ${RESEND_LIMIT} a minute in words, with Retry-After, and sends nothing`, async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    const event = await firstEvent(created.id);
    const sent = vi.spyOn(env.NOTIFICATIONS, "send").mockResolvedValue(undefined as never);
    const browser = await signedInBrowser(partner);
    const action = `${page(created.id)}/notifications/${event.id}/resend`;
    for (let i = 0; i < RESEND_LIMIT; i++) expect((await browser.submit(page(created.id), action)).status).toBe(303);
    const refused = await browser.submit(page(created.id), action);
    expect(refused.status).toBe(429);
    expect(refused.text).toContain(
      `At most ${RESEND_LIMIT} notifications can be sent again in ${RESEND_WINDOW_SECONDS} seconds`,
    );
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(sent).toHaveBeenCalledTimes(RESEND_LIMIT);
  });
});
