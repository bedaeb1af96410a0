import { describe, expect, it } from "vitest";
import { signIn } from "../support/api";
import { type ConsoleBrowser, formFields } from "../support/console";
import { approvedWithTotal, shippedWithTotal } from "../support/orders";
import { auditRows, personBrowser } from "../support/people";

const page = (id: string) => `/console/applications/${id}`;

/** Asks for the action on the application's page and confirms it, twice (a double-click): one write. */
async function confirmTwice(browser: ConsoleBrowser, id: string, action: string, fields: Record<string, string> = {}) {
  const confirmation = await browser.submit(page(id), `${page(id)}/${action}`, fields);
  expect(confirmation.status, confirmation.text).toBe(200);
  const confirm = formFields(confirmation.html, `${page(id)}/${action}`);
  const first = await browser.post(`${page(id)}/${action}`, confirm);
  const second = await browser.post(`${page(id)}/${action}`, confirm);
  expect([first.status, second.status]).toEqual([303, 303]);
}

/** The partner's console entries of the operation. */
const consoleEntries = async (partnerId: string, operation: string) =>
  (await auditRows(partnerId)).filter((r) => r.source === "CONSOLE" && r.operation === operation);

describe("the console's actions in the audit log", () => {
  it("a refund: once, by the person, with its amount and reason", async () => {
    const { partner, token } = await signIn();
    const id = await shippedWithTotal(token, 100000);
    const { browser, person } = await personBrowser(partner, "FINANCE");
    await confirmTwice(browser, id, "refund", { amount: "250.50", reason: "scratched box" });
    expect(await consoleEntries(partner.id, "createRefund")).toEqual([
      expect.objectContaining({
        actor_type: "PERSON",
        actor_id: person.id,
        actor_name: person.email,
        application_id: id,
        amount: 25050,
        currency: "CZK",
        reason: "scratched box",
        outcome: "SUCCEEDED",
        code: null,
      }),
    ]);
  });

  it("a refund of SUPPORT beyond its limit: refused with the role it needs, recorded, nothing refunded", async () => {
    const { partner, token } = await signIn();
    const id = await shippedWithTotal(token, 100000);
    const { browser: admin } = await personBrowser(partner, "ADMIN");
    await admin.submit("/console/people", "/console/people/refund-limit", { amount: "100", currency: "CZK" });
    const { browser: support } = await personBrowser(partner, "SUPPORT");
    const asked = await support.submit(page(id), `${page(id)}/refund`, { amount: "100.01" });
    expect(asked.status).toBe(403);
    expect(asked.text).toMatch(/refunds at most CZK\s100\.00 at once: a person with the FINANCE role refunds more/);
    await confirmTwice(support, id, "refund", { amount: "100.00" });
    expect((await consoleEntries(partner.id, "createRefund")).map((r) => [r.amount, r.outcome])).toEqual([
      [10000, "SUCCEEDED"],
    ]);
    // A crafted confirmation beyond the limit is refused and recorded.
    const confirmation = await support.submit(page(id), `${page(id)}/refund`, { amount: "50" });
    const crafted = await support.post(`${page(id)}/refund`, {
      ...formFields(confirmation.html, `${page(id)}/refund`),
      amount: "500",
    });
    expect(crafted.status).toBe(403);
    expect((await consoleEntries(partner.id, "createRefund")).map((r) => [r.amount, r.outcome, r.code])).toEqual([
      [10000, "SUCCEEDED", null],
      [50000, "REFUSED", "FORBIDDEN"],
    ]);
  });

  it("cancel, extend and send: once each, by the person, the cancellation with its reason", async () => {
    const { partner, token } = await signIn();
    const { browser, person } = await personBrowser(partner, "SUPPORT");
    const toExtend = await approvedWithTotal(token, 10000);
    await confirmTwice(browser, toExtend, "extend");
    await confirmTwice(browser, toExtend, "send");
    const toCancel = await approvedWithTotal(token, 10000);
    await confirmTwice(browser, toCancel, "cancel", {
      reason: "APPLICATION_CANCELLED_BY_CUSTOMER",
      note: "changed mind",
    });
    const entries = (await auditRows(partner.id)).filter((r) => r.source === "CONSOLE" && r.operation !== "signIn");
    expect(entries.map((r) => [r.operation, r.application_id, r.actor_id, r.outcome, r.reason])).toEqual([
      ["extendAuthorization", toExtend, person.id, "SUCCEEDED", null],
      ["sendItems", toExtend, person.id, "SUCCEEDED", null],
      ["cancelApplication", toCancel, person.id, "SUCCEEDED", "APPLICATION_CANCELLED_BY_CUSTOMER: changed mind"],
    ]);
  });

  it("a refusal of the domain: recorded with its code", async () => {
    const { partner, token } = await signIn();
    const id = await approvedWithTotal(token, 10000);
    const { browser } = await personBrowser(partner, "SUPPORT");
    await confirmTwice(browser, id, "send");
    // The page offers no cancel any more; a confirmation sent all the same is refused by the rules.
    const csrf = formFields((await browser.get(page(id))).html, "/console/sign-out").csrf!;
    const res = await browser.post(`${page(id)}/cancel`, { csrf, once: "z".repeat(22) });
    expect(res.status).toBe(422);
    expect(await consoleEntries(partner.id, "cancelApplication")).toEqual([
      expect.objectContaining({ application_id: id, outcome: "REFUSED", code: "ORDER_ALREADY_SENT" }),
    ]);
  });

  it("resend, replay and rotation: once each, by the person", async () => {
    const { partner, token } = await signIn();
    const id = await approvedWithTotal(token, 10000);
    const { browser: admin, person } = await personBrowser(partner, "ADMIN");
    const detail = await admin.get(page(id));
    const resendPath = /action="(\/console\/applications\/[^"]+\/resend)"/.exec(detail.html)![1]!;
    const resend = formFields(detail.html, resendPath);
    expect((await admin.post(resendPath, resend)).status).toBe(303);
    expect((await admin.post(resendPath, resend)).status).toBe(303);
    const replay = await admin.submit("/console/notifications", "/console/notifications/replay", {
      from: "2026-01-01T00:00",
    });
    expect(replay.status).toBe(200);
    const rotated = await admin.submit("/console/notifications", "/console/notification-secret/rotate");
    expect(rotated.status).toBe(200);
    const entries = (await auditRows(partner.id)).filter((r) => r.source === "CONSOLE" && r.operation !== "signIn");
    expect(entries.map((r) => [r.operation, r.actor_id, r.outcome])).toEqual([
      ["resendNotification", person.id, "SUCCEEDED"],
      ["replayNotifications", person.id, "SUCCEEDED"],
      ["rotateSigningSecret", person.id, "SUCCEEDED"],
    ]);
    expect(entries[0]).toMatchObject({ application_id: id, subject: expect.stringMatching(/^event /) });
    expect(entries[1]!.subject).toMatch(/^FAILED from 2026-01-01 00:00 to .*: 0 replayed$/);
    // The new secret is never in the log.
    const secret = /value="(whsec_[^"]+)"/.exec(rotated.html)![1]!;
    expect(JSON.stringify(await auditRows(partner.id))).not.toContain(secret.slice(6));
  });

  it("signing out: by the person", async () => {
    const { partner } = await signIn();
    const { browser, person } = await personBrowser(partner, "VIEWER");
    expect((await browser.submit("/console/applications", "/console/sign-out")).status).toBe(303);
    expect((await auditRows(partner.id)).map((r) => [r.operation, r.actor_id])).toEqual([
      ["signIn", person.id],
      ["signOut", person.id],
    ]);
  });
});
