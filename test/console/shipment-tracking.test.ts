import { describe, expect, it } from "vitest";
import { call, signIn } from "../support/api";
import { type ConsoleBrowser, formFields, signedInBrowser } from "../support/console";
import { countRows } from "../support/factories";
import { app, approved, put } from "../support/orders";
import { shipmentsOf } from "../support/settlement-api";
import { dbHolding } from "../support/shards";

const page = (id: string) => `/console/applications/${id}`;
const action = (id: string, shipmentId: string) => `${page(id)}/shipments/${shipmentId}/tracking`;

/** An approved application sent with a reference and the parcel's number: its id and its one shipment's. */
async function sentApplication(token: string) {
  const id = await approved(token);
  const res = await put(token, `${app(id)}/order/send`, { reference: "FV-2026-1", deliveryTrackingNumber: "PPL-1" });
  expect(res.status).toBe(200);
  const [shipment] = await shipmentsOf(token, id);
  return { id, shipmentId: shipment!.id };
}

const trackingOf = async (shipmentId: string) =>
  JSON.parse(
    (await (
      await dbHolding("shipments", shipmentId)
    )
      .prepare("SELECT tracking FROM shipments WHERE id = ?")
      .bind(shipmentId)
      .first<{ tracking: string }>())!.tracking,
  ) as { number: string; carrier: string | null; url: string | null }[];

/** Fills in the shipment's tracking form on the application page and sends it. */
const addTracking = (browser: ConsoleBrowser, id: string, shipmentId: string, fields: Record<string, string>) =>
  browser.submit(page(id), action(id, shipmentId), fields);

describe("POST /console/applications/:applicationId/shipments/:shipmentId/tracking", () => {
  it("adds tracking through the API's service, once per form, and shows it with its shipment", async () => {
    const { partner, token } = await signIn();
    const { id, shipmentId } = await sentApplication(token);
    const browser = await signedInBrowser(partner);
    const fields: Record<string, string> = {
      ...formFields((await browser.get(page(id))).html, action(id, shipmentId)),
      number: " PPL-2 ",
      carrier: "PPL",
      url: "https://www.ppl.cz/track?id=PPL-2&lang=en",
    };
    expect(fields.once).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const [first, second] = await Promise.all([
      browser.post(action(id, shipmentId), fields),
      browser.post(action(id, shipmentId), fields),
    ]);
    for (const res of [first, second]) {
      expect(res.status).toBe(303);
      expect(res.location).toBe(`${page(id)}?done=tracking#shipment-${shipmentId}`);
    }
    expect(
      await countRows("idempotency_keys", "partner_id = ? AND key = ?", partner.id, `console:${fields.once}`),
    ).toBe(1);
    expect(await trackingOf(shipmentId)).toEqual([
      { number: "PPL-1", carrier: "PPL", url: null, addedAt: expect.any(Number) },
      {
        number: "PPL-2",
        carrier: "PPL",
        url: "https://www.ppl.cz/track?id=PPL-2&lang=en",
        addedAt: expect.any(Number),
      },
    ]);
    // The API reads what the console added.
    const [shipment] = await shipmentsOf(token, id);
    expect(shipment!.tracking.map((t) => t.number)).toEqual(["PPL-1", "PPL-2"]);

    const after = await browser.get(first.location!);
    expect(after.text).toContain("The tracking was saved: it is shown with its shipment below.");
    expect(after.text).toMatch(/PPL-1 PPL \d{4}-\d\d-\d\d \d\d:\d\d PPL-2 at www\.ppl\.cz PPL \d{4}/);
    // The page links to its own address of the entry, which leads to the tracking page.
    expect(after.html).toContain(`<a href="${action(id, shipmentId)}/1">PPL-2</a>`);
    const link = await browser.get(`${action(id, shipmentId)}/1`);
    expect(link.status).toBe(303);
    expect(link.location).toBe("https://www.ppl.cz/track?id=PPL-2&lang=en");
    expect((await browser.get(`${action(id, shipmentId)}/0`)).status).toBe(404);
    expect((await browser.get(`${action(id, shipmentId)}/2`)).status).toBe(404);
  });

  it("refuses what the API refuses, in words and with its status, and changes nothing", async () => {
    const { partner, token } = await signIn();
    const { id, shipmentId } = await sentApplication(token);
    const browser = await signedInBrowser(partner);
    for (const [fields, words] of [
      [{ number: "PPL-2", url: "http://www.ppl.cz/t" }, "Tracking page: must be an https URL (INVALID_VALUE)"],
      [{ number: "PPL-2", url: "https://10.0.0.1/t" }, "Tracking page: must point at a public host"],
      [{ number: "  " }, "Tracking number: must be 1 to 100 characters (INVALID_VALUE)"],
      [{ number: "PPL-2", carrier: "x".repeat(101) }, "Carrier: must be 1 to 100 characters (INVALID_VALUE)"],
    ] as const) {
      const res = await addTracking(browser, id, shipmentId, fields);
      expect(res.status).toBe(400);
      expect(res.text).toContain("Tracking not added");
      expect(res.text).toContain(words);
    }
    expect(await trackingOf(shipmentId)).toHaveLength(1);

    for (let n = 2; n <= 10; n++) {
      expect((await addTracking(browser, id, shipmentId, { number: `PPL-${n}` })).status).toBe(303);
    }
    const full = await browser.get(page(id));
    expect(full.text).toContain("This shipment holds 10 tracking entries, the most one may.");
    expect(full.html).not.toContain(`action="${action(id, shipmentId)}"`);
    // As a form shown before the shipment filled up would post it now.
    const refused = await browser.post(action(id, shipmentId), {
      csrf: formFields(full.html, "/console/sign-out").csrf!,
      once: "B".repeat(22),
      number: "PPL-11",
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain(
      "The shipment holds 10 tracking entries, the most one may. (TRACKING_LIMIT_REACHED)",
    );
    expect(await trackingOf(shipmentId)).toHaveLength(10);
  });

  it("refuses a form without its CSRF token (403) or its one-time token (400), adding nothing", async () => {
    const { partner, token } = await signIn();
    const { id, shipmentId } = await sentApplication(token);
    const browser = await signedInBrowser(partner);
    const { csrf, once } = formFields((await browser.get(page(id))).html, action(id, shipmentId));
    const withoutCsrf = await browser.post(action(id, shipmentId), { once: once!, number: "X-1" });
    expect(withoutCsrf.status).toBe(403);
    expect(withoutCsrf.text).toContain("This form has expired");
    const withoutOnce = await browser.post(action(id, shipmentId), { csrf: csrf!, number: "X-1" });
    expect(withoutOnce.status).toBe(400);
    expect(await trackingOf(shipmentId)).toHaveLength(1);
  });

  it("is not found for another partner's shipment, whose tracking stays as it was", async () => {
    const { token } = await signIn();
    const { id, shipmentId } = await sentApplication(token);
    await call("POST", `${app(id)}/shipments/${shipmentId}/tracking`, {
      token,
      body: { number: "PPL-2", url: "https://www.ppl.cz/t" },
    });
    const stranger = await signedInBrowser((await signIn()).partner);
    const { csrf } = formFields((await stranger.get("/console/payouts")).html, "/console/sign-out");
    const res = await stranger.post(action(id, shipmentId), { csrf: csrf!, once: "C".repeat(22), number: "X-1" });
    expect(res.status).toBe(404);
    expect(res.text).toContain("Not found");
    expect((await stranger.get(`${action(id, shipmentId)}/1`)).status).toBe(404);
    expect(await trackingOf(shipmentId)).toHaveLength(2);
  });
});
