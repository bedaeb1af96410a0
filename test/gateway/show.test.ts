import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { gatewayToken } from "../../src/auth/gateway-token";
import { newId } from "../../src/ids";
import { BASE, call, signIn } from "../support/api";
import { applicationRequest, createApplication, forceState } from "../support/factories";
import { openGateway, requestWithTotal, submitGateway } from "../support/gateway";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Instalments as the page lists them: [number, due date, amount in minor units]. */
function listedInstalments(text: string): [number, string, number][] {
  return [...text.matchAll(/Instalment (\d) of 3, due (\d{4}-\d{2}-\d{2}) CZK ([\d,]+\.\d{2})/g)].map((m) => [
    Number(m[1]),
    m[2]!,
    Math.round(Number(m[3]!.replace(/,/g, "")) * 100),
  ]);
}

function fakeToday(instant: string) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(instant));
}

describe("GET /gateway/{applicationId}/{token}", () => {
  it("shows the merchant, the items, the total and the single deferred payment due in 30 days", async () => {
    fakeToday("2027-01-31T12:00:00Z");
    const { partner, token } = await signIn();
    const app = await createApplication(token);

    const page = await openGateway(app.gatewayRedirectUrl);

    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(page.html).toMatch(/^<!doctype html>/);
    expect(page.html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1"/>');
    expect(page.html).not.toContain("<script");
    expect(page.text).toContain(`Shop ${partner.username} Pay later`);
    expect(page.text).toContain(`Order ${app.order.number as string}`);
    expect(page.text).toContain(
      "Mechanical keyboard 2 CZK 1,520.00 Guide to typing 1 CZK 160.00 Delivery 1 CZK 320.00 Order total CZK 2,000.00",
    );
    expect(page.text).toContain("One payment of CZK 2,000.00, due 2027-03-02.");
    expect(listedInstalments(page.text)).toEqual([]);
  });

  it("shows the three PAY_IN_THREE instalments due today, in 30 and in 60 days", async () => {
    fakeToday("2027-01-31T12:00:00Z");
    const { partner, token } = await signIn();
    const app = await createApplication(token, applicationRequest({ type: "PAY_IN_THREE" }));

    const page = await openGateway(app.gatewayRedirectUrl);

    expect(page.status).toBe(200);
    expect(page.text).toContain(`Shop ${partner.username} Pay in three instalments`);
    expect(page.text).toContain("Order total CZK 2,000.00");
    expect(listedInstalments(page.text)).toEqual([
      [1, "2027-01-31", 66667],
      [2, "2027-03-02", 66667],
      [3, "2027-04-01", 66666],
    ]);
    expect(page.text).not.toContain("One payment of");
  });

  it.each([
    [1000, [334, 333, 333], "CZK 10.00"],
    [1001, [334, 334, 333], "CZK 10.01"],
  ])("splits a total of %i minor units into instalments %j that sum to it exactly", async (total, amounts, shown) => {
    const { token } = await signIn();
    const app = await createApplication(token, requestWithTotal(total, { type: "PAY_IN_THREE" }));

    const page = await openGateway(app.gatewayRedirectUrl);

    expect(page.text).toContain(`Desk lamp 1 ${shown} Order total ${shown}`);
    const listed = listedInstalments(page.text).map(([, , amount]) => amount);
    expect(listed).toEqual(amounts);
    expect(listed.reduce((sum, amount) => sum + amount, 0)).toBe(total);
  });

  it("takes today in the service time zone", async () => {
    fakeToday("2027-01-31T23:30:00Z");
    const { token } = await signIn();
    const app = await createApplication(token, applicationRequest({ type: "PAY_IN_THREE" }));
    // 23:30 UTC on 31 January is already 1 February in Prague.

    const page = await openGateway(app.gatewayRedirectUrl, { SERVICE_TIMEZONE: "Europe/Prague" });

    expect(listedInstalments(page.text).map(([, due]) => due)).toEqual(["2027-02-01", "2027-03-03", "2027-04-02"]);
  });

  it("offers the agreement checkbox only when the partner did not send the agreement", async () => {
    const { token } = await signIn();
    const agreed = await createApplication(token);
    const notAgreed = await createApplication(token, { ...applicationRequest(), agreementTermsAndConditions: false });
    const checkbox = '<input type="checkbox" name="agreement" value="yes" required=""/>';

    const withAgreement = await openGateway(agreed.gatewayRedirectUrl);
    const withoutAgreement = await openGateway(notAgreed.gatewayRedirectUrl);

    expect(withAgreement.html).not.toContain('name="agreement"');
    expect(withoutAgreement.html).toContain(checkbox);
    for (const page of [withAgreement, withoutAgreement]) {
      expect(page.html.match(/<form /g)).toHaveLength(1);
      expect(page.html).toContain('<form method="post"');
      expect(page.html).toContain('<button type="submit" name="action" value="confirm"');
      expect(page.html).toContain('<button type="submit" name="action" value="cancel"');
    }
  });

  it("escapes what the partner sent instead of rendering it as markup", async () => {
    const { token } = await signIn();
    const body = requestWithTotal(1000);
    body.order.items[0]!.name = '<script>alert("x")</script> & more';
    const app = await createApplication(token, body);

    const page = await openGateway(app.gatewayRedirectUrl);

    expect(page.html).not.toContain("<script>");
    expect(page.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more");
  });

  it("sends headers that keep the page and its token private", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);

    const page = await openGateway(app.gatewayRedirectUrl);

    expect(page.headers.get("Cache-Control")).toBe("no-store");
    expect(page.headers.get("Referrer-Policy")).toBe("no-referrer");
    expect(page.headers.get("Content-Security-Policy")).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' https: http:; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(page.headers.get("X-Request-Id")).toBeTruthy();
  });

  it("lets forms post only to https targets where HTTPS is required", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    const httpsUrl = app.gatewayRedirectUrl.replace(/^http:/, "https:");

    const page = await openGateway(httpsUrl, { REQUIRE_HTTPS: "true" });

    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Security-Policy")).toContain("form-action 'self' https:;");
  });

  it("needs no partner session and never logs the token", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    const gatewayTokenOfApp = app.gatewayRedirectUrl.split("/").at(-1)!;
    const log = vi.spyOn(console, "log");

    const page = await openGateway(app.gatewayRedirectUrl);
    await submitGateway(app.gatewayRedirectUrl, { action: "cancel" });

    expect(page.status).toBe(200);
    const lines = log.mock.calls.map((args) => args.join(" "));
    expect(lines.some((l) => l.includes('"route":"/gateway/:applicationId/:token"'))).toBe(true);
    expect(lines.filter((l) => l.includes(gatewayTokenOfApp))).toEqual([]);
  });

  it.each([
    ["a wrong token", async (url: string) => `${url.slice(0, -1)}${url.endsWith("0") ? "1" : "0"}`],
    ["a truncated token", async (url: string) => url.slice(0, -4)],
    [
      "an unknown application id, even with its valid token",
      async () => {
        const id = newId();
        return `${BASE}/gateway/${id}/${await gatewayToken(env.AUTH_PEPPER, id)}`;
      },
    ],
  ])("answers a 404 page for %s", async (_, urlFrom) => {
    const { token } = await signIn();
    const app = await createApplication(token);

    const page = await openGateway(await urlFrom(app.gatewayRedirectUrl));

    expect(page.status).toBe(404);
    expect(page.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(page.headers.get("Cache-Control")).toBe("no-store");
    expect(page.text).toContain("Payment link not found");
    expect(page.html).not.toContain("<form");
  });

  it("does not open the page with another application's token", async () => {
    const { token } = await signIn();
    const first = await createApplication(token);
    const second = await createApplication(token);
    const firstToken = first.gatewayRedirectUrl.split("/").at(-1)!;

    const page = await openGateway(`${BASE}/gateway/${second.id}/${firstToken}`);

    expect(page.status).toBe(404);
  });

  it.each([
    ["READY", "READY_TO_SHIP", "Financing approved", "approved?order=1&amp;applicationId="],
    ["READY", "READY_SHIPPED", "Financing approved", "approved?order=1&amp;applicationId="],
    ["REJECTED", "REJECTED", "Financing not approved", "rejected?applicationId="],
    ["CANCELLED", "CANCELLED_NOT_PAID", "Application cancelled", "rejected?applicationId="],
  ])("shows the outcome instead of the form once the application is %s / %s", async (state, reason, heading, back) => {
    const { token } = await signIn();
    const app = await createApplication(token);
    await forceState(app.id, state, reason);

    const page = await openGateway(app.gatewayRedirectUrl);

    expect(page.status).toBe(200);
    expect(page.text).toContain(heading);
    expect(page.html).not.toContain("<form");
    expect(page.html).toContain(`href="https://shop.example.com/financing/${back}${app.id}"`);
  });

  it("shows the outcome after the partner cancelled the application", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    await call("PUT", `/financing/v1/applications/${app.id}/cancel`, { token });

    const page = await openGateway(app.gatewayRedirectUrl);

    expect(page.text).toContain("Application cancelled");
    expect(page.html).not.toContain("<form");
  });
});
