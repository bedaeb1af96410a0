import { describe, expect, it } from "vitest";
import { signIn } from "../support/api";
import { signedInBrowser } from "../support/console";
import { applicationRequest, createApplication, forceState } from "../support/factories";
import { approvedWithTotal } from "../support/orders";

const page = (id: string) => `/console/applications/${id}`;

describe("GET /console/applications/:applicationId", () => {
  it("shows state, ids, the customer's payment page, dates, money and lines", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    await forceState(created.id, "READY", "READY_TO_SHIP");
    const res = await (await signedInBrowser(partner)).get(page(created.id));
    expect(res.status).toBe(200);
    expect(res.text).toContain(`Order ${created.order.number as string}`);
    expect(res.text).toContain("State READY READY_TO_SHIP");
    expect(res.text).toContain(`Application id ${created.id}`);
    expect(res.text).toContain("Variable symbols 2026000123");
    expect(res.text).toContain("Customer Jana Nováková, jana.novakova@example.com");
    expect(res.text).toContain(created.gatewayRedirectUrl);
    expect(res.text).toMatch(
      /Approved CZK 2,000\.00 Financed CZK 2,000\.00 Refunded CZK 0\.00 Refundable CZK 2,000\.00/,
    );
    expect(res.text).toContain("Mechanical keyboard KB-01 2 CZK 1,520.00 PROCESSING");
    expect(res.text).toContain("Guide to typing BK-7 1 CZK 160.00 PROCESSING");
  });

  it("lists every event with every delivery attempt and a Resend button", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    const browser = await signedInBrowser(partner);
    const res = await browser.get(page(created.id));
    expect(res.text).toContain("APPLICATION_STATE_CHANGED PROCESSING PROCESSING_REDIRECT_NEEDED Delivery: PENDING");
    expect(res.text).toContain("No delivery attempt yet.");
    expect(res.html).toMatch(/action="\/console\/applications\/[0-9A-Z]+\/notifications\/[0-9A-Z]+\/resend"/);
    expect(res.html).toContain(">Resend<");
  });

  it("offers what the domain allows now and says why not the rest", async () => {
    const { partner, token } = await signIn();
    const waiting = await createApplication(token);
    const browser = await signedInBrowser(partner);
    const processing = await browser.get(page(waiting.id));
    expect(processing.text).toContain(
      "Refund Not possible now: The application is not approved yet. (APPLICATION_NOT_READY)",
    );
    expect(processing.html).toContain(`action="/console/applications/${waiting.id}/cancel"`);
    expect(processing.html).not.toContain(`action="/console/applications/${waiting.id}/refund"`);
    const ready = await approvedWithTotal(token, 50000);
    const approved = await browser.get(page(ready));
    for (const action of ["refund", "cancel", "send"]) {
      expect(approved.html).toContain(`action="/console/applications/${ready}/${action}"`);
    }
  });

  it("is not found for another partner's application, nor for an id that does not exist", async () => {
    const { token } = await signIn();
    const foreign = await createApplication(token);
    const browser = await signedInBrowser((await signIn()).partner);
    for (const id of [foreign.id, "01J000000000000000000000000"]) {
      const res = await browser.get(page(id));
      expect(res.status).toBe(404);
      expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
      expect(res.text).toContain("Not found");
      expect(res.html).not.toContain(foreign.id);
    }
  });

  it("shows a customer's name as text: markup in it is escaped, never run", async () => {
    const { partner, token } = await signIn();
    const body = applicationRequest();
    body.customer.fullName = "<img src=x onerror=alert(1)>";
    body.order.items[1]!.name = '"><script>alert(2)</script>';
    const created = await createApplication(token, body);
    const res = await (await signedInBrowser(partner)).get(page(created.id));
    expect(res.html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(res.html).toContain("&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;");
    expect(res.html).not.toMatch(/<img|<script/);
  });

  it("puts no token or secret in any of its own links or form targets", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    const res = await (await signedInBrowser(partner)).get(page(created.id));
    const links = [...res.html.matchAll(/(?:href|action)="([^"]+)"/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) expect(link).not.toMatch(/gateway|csrf|once|session|token|secret/i);
  });
});
