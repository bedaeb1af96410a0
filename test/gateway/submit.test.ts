import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../support/api";
import { applicationRequest, createApplication, eventsOf, forceState } from "../support/factories";
import { browse, openGateway, requestWithTotal, storedDecision, submitGateway } from "../support/gateway";
import { dbOfApplication } from "../support/shards";

const APPROVED = "https://shop.example.com/financing/approved?order=1";
const REJECTED = "https://shop.example.com/financing/rejected";
const CREATED = { sequence: 1, state: "PROCESSING", stateReason: "PROCESSING_REDIRECT_NEEDED" };

interface Application {
  state: string;
  stateReason: string;
  agreementTermsAndConditions: boolean;
  cancellation?: { reason: string };
  order: { state: string; totalPrice: { amount: number }; items: { state: string }[] };
}

async function readApplication(token: string, id: string): Promise<Application> {
  return json<Application>(await call("GET", `/financing/v1/applications/${id}`, { token }));
}

describe("POST /gateway/{applicationId}/{token}", () => {
  it("approves on confirm and sends the customer to approvedRedirect with the application id added", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);

    const res = await submitGateway(app.gatewayRedirectUrl, { action: "confirm" });

    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe(`${APPROVED}&applicationId=${app.id}`);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(await readApplication(token, app.id)).toMatchObject({
      state: "READY",
      stateReason: "READY_TO_SHIP",
      order: { state: "PROCESSING", totalPrice: { amount: 200000 } },
    });
    const stored = await storedDecision(app.id);
    expect(stored).toMatchObject({ approvedAmount: 200000, decisionReasons: ["WITHIN_LIMIT"], cancelReason: null });
    expect(stored.decidedAt).toBeGreaterThan(0);
    expect(await eventsOf(app.id)).toEqual([CREATED, { sequence: 2, state: "READY", stateReason: "READY_TO_SHIP" }]);
  });

  it("adds applicationId as the only query of a redirect URL that has none", async () => {
    const { token } = await signIn();
    const body = applicationRequest();
    body.merchantUrls.approvedRedirect = "https://shop.example.com/done#top";
    const app = await createApplication(token, body);

    const res = await submitGateway(app.gatewayRedirectUrl, { action: "confirm" });

    expect(res.headers.get("Location")).toBe(`https://shop.example.com/done?applicationId=${app.id}#top`);
  });

  it("keeps the partner's query exactly as sent", async () => {
    const { token } = await signIn();
    const body = applicationRequest();
    body.merchantUrls.approvedRedirect = "https://shop.example.com/back?sig=a%2Bb&note=x+y&flag";
    const app = await createApplication(token, body);

    const res = await submitGateway(app.gatewayRedirectUrl, { action: "confirm" });

    expect(res.headers.get("Location")).toBe(
      `https://shop.example.com/back?sig=a%2Bb&note=x+y&flag&applicationId=${app.id}`,
    );
  });

  it("cancels on cancel, every line with it, and sends the customer to rejectedRedirect", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);

    const res = await submitGateway(app.gatewayRedirectUrl, { action: "cancel" });

    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe(`${REJECTED}?applicationId=${app.id}`);
    const read = await readApplication(token, app.id);
    expect(read).toMatchObject({
      state: "CANCELLED",
      stateReason: "CANCELLED_NOT_PAID",
      cancellation: { reason: "APPLICATION_CANCELLED_BY_CUSTOMER" },
      order: { state: "CANCELLED", totalPrice: { amount: 0 } },
    });
    expect(read.order.items.map((i) => i.state)).toEqual(["CANCELLED", "CANCELLED", "CANCELLED"]);
    expect(await storedDecision(app.id)).toMatchObject({
      decisionReasons: null,
      decidedAt: null,
      approvedAmount: null,
    });
    expect(await eventsOf(app.id)).toEqual([
      CREATED,
      { sequence: 2, state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" },
    ]);
  });

  it("cancels without the agreement, and does not record a tick given with cancel", async () => {
    const { token } = await signIn();
    const app = await createApplication(token, { ...applicationRequest(), agreementTermsAndConditions: false });

    const res = await submitGateway(app.gatewayRedirectUrl, { action: "cancel", agreement: "yes" });

    expect(res.headers.get("Location")).toBe(`${REJECTED}?applicationId=${app.id}`);
    expect(await readApplication(token, app.id)).toMatchObject({
      state: "CANCELLED",
      agreementTermsAndConditions: false,
    });
  });

  it("decides once when the customer submits twice, and only redirects the second time", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);

    const first = await submitGateway(app.gatewayRedirectUrl, { action: "confirm" });
    const second = await submitGateway(app.gatewayRedirectUrl, { action: "confirm" });
    // Going back and pressing cancel after the approval changes nothing either.
    const late = await submitGateway(app.gatewayRedirectUrl, { action: "cancel" });

    for (const res of [first, second, late]) {
      expect(res.status).toBe(303);
      expect(res.headers.get("Location")).toBe(`${APPROVED}&applicationId=${app.id}`);
    }
    expect(await readApplication(token, app.id)).toMatchObject({ state: "READY", stateReason: "READY_TO_SHIP" });
    expect(await eventsOf(app.id)).toEqual([CREATED, { sequence: 2, state: "READY", stateReason: "READY_TO_SHIP" }]);
  });

  it("decides once under 6 concurrent confirms, with exactly one READY event", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);

    const responses = await Promise.all(
      Array.from({ length: 6 }, () => submitGateway(app.gatewayRedirectUrl, { action: "confirm" })),
    );

    for (const res of responses) {
      expect(res.status).toBe(303);
      expect(res.headers.get("Location")).toBe(`${APPROVED}&applicationId=${app.id}`);
    }
    const events = await eventsOf(app.id);
    expect(events.filter((e) => e.state === "READY")).toHaveLength(1);
    expect(events).toEqual([CREATED, { sequence: 2, state: "READY", stateReason: "READY_TO_SHIP" }]);
  });

  it("lets one of a racing confirm and cancel win and sends both to the winner's outcome", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);

    const responses = await Promise.all([
      submitGateway(app.gatewayRedirectUrl, { action: "confirm" }),
      submitGateway(app.gatewayRedirectUrl, { action: "cancel" }),
      submitGateway(app.gatewayRedirectUrl, { action: "confirm" }),
      submitGateway(app.gatewayRedirectUrl, { action: "cancel" }),
    ]);

    const { state } = await readApplication(token, app.id);
    const expected = state === "READY" ? `${APPROVED}&applicationId=${app.id}` : `${REJECTED}?applicationId=${app.id}`;
    expect(["READY", "CANCELLED"]).toContain(state);
    expect(responses.map((r) => r.headers.get("Location"))).toEqual([expected, expected, expected, expected]);
    expect(await eventsOf(app.id)).toHaveLength(2);
  });

  it("shows the outcome when the page is opened again after confirming", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    await submitGateway(app.gatewayRedirectUrl, { action: "confirm" });

    const page = await openGateway(app.gatewayRedirectUrl);

    expect(page.status).toBe(200);
    expect(page.text).toContain("Financing approved");
    expect(page.html).not.toContain("<form");
  });

  it("rejects a customer whose e-mail ends in +reject, sending them to rejectedRedirect", async () => {
    const { token } = await signIn();
    const app = await createApplication(token, applicationRequest({ email: "jana+reject@example.com" }));

    const res = await submitGateway(app.gatewayRedirectUrl, { action: "confirm" });

    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe(`${REJECTED}?applicationId=${app.id}`);
    expect(await readApplication(token, app.id)).toMatchObject({ state: "REJECTED", stateReason: "REJECTED" });
    expect(await storedDecision(app.id)).toMatchObject({
      approvedAmount: null,
      decisionReasons: ["SANDBOX_REJECT", "WITHIN_LIMIT"],
    });
    expect(await eventsOf(app.id)).toEqual([CREATED, { sequence: 2, state: "REJECTED", stateReason: "REJECTED" }]);
    expect((await openGateway(app.gatewayRedirectUrl)).text).toContain("Financing not approved");
  });

  it("approves a customer whose e-mail ends in +approve above the amount limit", async () => {
    const { token } = await signIn();
    // 60,000.00 CZK: above the configured DEFERRED_PAYMENT limit of 50,000.00 CZK.
    const app = await createApplication(token, requestWithTotal(6_000_000, { email: "Jana+Approve@example.com" }));

    const res = await submitGateway(app.gatewayRedirectUrl, { action: "confirm" });

    expect(res.headers.get("Location")).toBe(`${APPROVED}&applicationId=${app.id}`);
    expect(await storedDecision(app.id)).toMatchObject({
      state: "READY",
      stateReason: "READY_TO_SHIP",
      approvedAmount: 6_000_000,
      decisionReasons: ["SANDBOX_APPROVE"],
    });
  });

  it("rejects a total above the configured limit of its type and currency", async () => {
    const { token } = await signIn();
    const app = await createApplication(token, requestWithTotal(5_000_001));

    const res = await submitGateway(app.gatewayRedirectUrl, { action: "confirm" });

    expect(res.headers.get("Location")).toBe(`${REJECTED}?applicationId=${app.id}`);
    expect(await storedDecision(app.id)).toMatchObject({
      state: "REJECTED",
      stateReason: "REJECTED",
      approvedAmount: null,
      decisionReasons: ["AMOUNT_OVER_LIMIT"],
    });
  });

  it("applies the limits of DECISION_LIMITS as configured", async () => {
    const { token } = await signIn();
    const over = await createApplication(token, requestWithTotal(100_001));
    const within = await createApplication(token, requestWithTotal(100_000));
    const vars = { DECISION_LIMITS: '{"DEFERRED_PAYMENT":{"CZK":100000}}' };

    const rejected = await submitGateway(over.gatewayRedirectUrl, { action: "confirm" }, vars);
    const approved = await submitGateway(within.gatewayRedirectUrl, { action: "confirm" }, vars);

    expect(rejected.headers.get("Location")).toBe(`${REJECTED}?applicationId=${over.id}`);
    expect(approved.headers.get("Location")).toBe(`${APPROVED}&applicationId=${within.id}`);
    expect(await storedDecision(over.id)).toMatchObject({ state: "REJECTED", decisionReasons: ["AMOUNT_OVER_LIMIT"] });
    expect(await storedDecision(within.id)).toMatchObject({ state: "READY", decisionReasons: ["WITHIN_LIMIT"] });
  });

  it("rejects a currency without a configured limit", async () => {
    const { token } = await signIn();
    const app = await createApplication(token, requestWithTotal(1000));

    const res = await submitGateway(app.gatewayRedirectUrl, { action: "confirm" }, { DECISION_LIMITS: "{}" });

    expect(res.headers.get("Location")).toBe(`${REJECTED}?applicationId=${app.id}`);
    expect(await storedDecision(app.id)).toMatchObject({ decisionReasons: ["NO_LIMIT_FOR_CURRENCY"] });
  });

  it("rejects a confirm without the agreement when the partner did not send it", async () => {
    const { token } = await signIn();
    const app = await createApplication(token, { ...applicationRequest(), agreementTermsAndConditions: false });

    const res = await submitGateway(app.gatewayRedirectUrl, { action: "confirm" });

    expect(res.headers.get("Location")).toBe(`${REJECTED}?applicationId=${app.id}`);
    expect(await storedDecision(app.id)).toMatchObject({
      state: "REJECTED",
      agreement: 0,
      decisionReasons: ["AGREEMENT_MISSING", "WITHIN_LIMIT"],
    });
  });

  it("approves with the agreement ticked on the page and records it", async () => {
    const { token } = await signIn();
    const app = await createApplication(token, { ...applicationRequest(), agreementTermsAndConditions: false });

    const res = await submitGateway(app.gatewayRedirectUrl, { agreement: "yes", action: "confirm" });

    expect(res.headers.get("Location")).toBe(`${APPROVED}&applicationId=${app.id}`);
    expect(await readApplication(token, app.id)).toMatchObject({
      state: "READY",
      stateReason: "READY_TO_SHIP",
      agreementTermsAndConditions: true,
    });
  });

  it("redirects without deciding when the application was already rejected", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    await forceState(app.id, "REJECTED", "REJECTED");

    const res = await submitGateway(app.gatewayRedirectUrl, { action: "confirm" });

    expect(res.headers.get("Location")).toBe(`${REJECTED}?applicationId=${app.id}`);
    expect(await storedDecision(app.id)).toMatchObject({ state: "REJECTED", decisionReasons: null });
    expect(await eventsOf(app.id)).toEqual([CREATED]);
  });

  it.each([
    ["an unknown action", { action: "approve" }],
    ["no action", { agreement: "yes" }],
  ])("answers a 400 page for %s and changes nothing", async (_, fields) => {
    const { token } = await signIn();
    const app = await createApplication(token);

    const res = await submitGateway(app.gatewayRedirectUrl, fields);

    expect(res.status).toBe(400);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(await res.text()).toContain("Please use the buttons on the payment page.");
    expect(await eventsOf(app.id)).toEqual([CREATED]);
  });

  it("answers a 400 page for a JSON body: the gateway only takes the form", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);

    const res = await browse(app.gatewayRedirectUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ action: "confirm" }),
    });

    expect(res.status).toBe(400);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(await eventsOf(app.id)).toEqual([CREATED]);
  });

  it("answers a 400 page, not a 500, for a multipart body that does not parse", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    const res = await browse(app.gatewayRedirectUrl, {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=XyZ" },
      body: '--XyZ\r\nContent-Disposition: form-data; name="action"\r\n\r\nconfirm',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(await eventsOf(app.id)).toEqual([CREATED]);
  });

  it("does not redirect the customer to a stored URL that points inside a network, showing the outcome instead", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    await (await dbOfApplication(app.id))
      .prepare("UPDATE applications SET merchant_urls = json_set(merchant_urls, '$.approvedRedirect', ?) WHERE id = ?")
      .bind("https://10.0.0.1/admin", app.id)
      .run();
    const res = await submitGateway(app.gatewayRedirectUrl, { action: "confirm" }, { REQUIRE_HTTPS: "false" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Location")).toBeNull();
    const page = await res.text();
    expect(page).toContain("Financing approved");
    expect(page).not.toContain("10.0.0.1");
  });

  it("answers a 404 page for a wrong token and changes nothing", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    const wrong = `${app.gatewayRedirectUrl.slice(0, -1)}${app.gatewayRedirectUrl.endsWith("0") ? "1" : "0"}`;

    const res = await submitGateway(wrong, { action: "confirm" });

    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(res.headers.get("Location")).toBeNull();
    expect(await res.text()).toContain("Payment link not found");
    expect(await eventsOf(app.id)).toEqual([CREATED]);
  });
});
