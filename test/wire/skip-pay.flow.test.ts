import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../src/http/body-limit";
import { type CallOptions, call, createPartner, json } from "../support/api";
import { submitGateway } from "../support/gateway";
import { partnerEndpoint, QUEUE, runBatch, sent, useNotificationHarness } from "../support/notifications";
import { dbOf } from "../support/shards";
import { checked, expectSkipPayBody } from "../support/skippay-check";

useNotificationHarness();

const CZK = (amount: number) => ({ amount, currency: "CZK" });
const VAT = (amount: number) => ({ amount, currency: "CZK", vatRate: 21 });

/** Skip Pay's shape of an item, with the nulls their SDK sends for what is not set. */
const theirItem = (code: string, quantity: number, unit: number, unitVat: number) => ({
  code,
  ean: null,
  name: `Item ${code}`,
  type: "PHYSICAL",
  variant: null,
  producer: "Acme",
  categories: null,
  description: null,
  productUrl: null,
  image: null,
  quantity,
  unitPrice: CZK(unit),
  unitVat: VAT(unitVat),
  totalPrice: CZK(unit * quantity),
  totalVat: VAT(unitVat * quantity),
});

/** A create request as a client generated from their document sends it (their ApplicationRequest). */
function theirApplication(number: string, email = "jana.novakova@example.com") {
  return {
    type: "DEFERRED_PAYMENT",
    agreementTermsAndConditions: true,
    precheckIds: [],
    isRecurring: false,
    customer: {
      email,
      phone: "+420777123456",
      firstName: "Jana",
      lastName: "Nováková",
      fullName: null,
      titleBefore: null,
      tin: null,
      extraData: { transactionsNumber: 4, transactionsSum: CZK(250_000), tags: null },
    },
    order: {
      number,
      variableSymbols: ["2027000048"],
      totalPrice: CZK(310_000),
      totalVat: [VAT(53_800)],
      addresses: [
        {
          name: "Jana Nováková",
          country: "CZ",
          city: "Praha",
          streetAddress: "Letenská",
          streetNumber: "22",
          zip: "118 00",
          addressType: "DELIVERY",
        },
      ],
      deliveryType: "DELIVERY_CARRIER",
      deliveryCarrier: "PPL",
      reservationDate: null,
      documents: null,
      merchantId: null,
      items: [
        theirItem("TV-55", 2, 100_000, 17_355),
        theirItem("SB-1", 1, 100_000, 17_355),
        theirItem("HDMI", 1, 10_000, 1_735),
      ],
    },
    merchantUrls: {
      approvedRedirect: "https://shop.example.com/approved",
      rejectedRedirect: "https://shop.example.com/rejected",
      notificationEndpoint: "https://shop.example.com/notifications",
      paymentsEndpoint: null,
    },
  };
}

/** Their DocumentRequest: the content alone. */
const document = (type: string, content: string) => ({
  type,
  file: btoa(content),
  description: null,
  extraData: { variableSymbol: "2027000048" },
});

type Order = { state: string; items: { code: string; quantity: number; state: string }[] } & Record<string, unknown>;
type Application = { id: string; state: string; stateReason: string; gatewayRedirectUrl: string; order: Order };
type Info = { applicationInfo: { state: string; stateReason: string } };

describe("a SKIP_PAY partner's whole flow, read through Skip Pay's own document", () => {
  it("answers every body, error and notification in their schemas, unknown fields refused", async () => {
    // The tally is the module's, which other files of this runtime may have used before: this test's only.
    checked.length = 0;
    partnerEndpoint(() => new Response('{"status":"OK"}', { status: 200 }));
    const partner = await createPartner({ wireProfile: "SKIP_PAY" });
    /** A request of the partner: its answer is checked against their document (test/support/skippay-check.ts). */
    const sp = (method: string, path: string, options: CallOptions = {}) =>
      call(method, path, { token, wire: "SKIP_PAY", ...options });
    const app = (id: string, rest = "") => `/financing/v1/applications/${id}${rest}`;
    const expectStatus = async (res: Response, status: number) => {
      expect(res.status, await res.clone().text()).toBe(status);
      return res;
    };

    // Login, as their SDK sends it: first without a token, then again with the one it holds. (Without a
    // valid token no partner is known: a refusal then is ours, as the user name must not tell.)
    let token = "";
    const credentials = { username: partner.username, password: partner.password };
    const first = await sp("POST", "/authentication/v1/partner", { body: credentials });
    token = (await json<{ accessToken: string }>(await expectStatus(first, 200))).accessToken;
    const wrong = { body: { ...credentials, password: "wrong" } };
    expect(await json(await expectStatus(await call("POST", "/authentication/v1/partner", wrong), 400))).toMatchObject({
      error: "invalid_grant",
    });
    expect(await json(await expectStatus(await sp("POST", "/authentication/v1/partner", wrong), 400))).toEqual({
      errors: [expect.objectContaining({ code: "INVALID_CREDENTIALS" })],
    });
    await expectStatus(await sp("GET", "/v1/health"), 200);

    // Precheck in their shape: the order's total, one type.
    const precheck = await sp("POST", "/financing/v1/precheck", {
      body: {
        customer: { email: "jana.novakova@example.com", phone: "+420777123456" },
        order: { totalPrice: CZK(310_000) },
      },
    });
    expect(await json(await expectStatus(precheck, 200))).toMatchObject({
      results: [{ type: "DEFERRED_PAYMENT", recommendation: true, code: "OK" }],
    });

    // Create, its duplicate, read it, approve it at the gateway.
    const request = theirApplication("SP-48-1");
    const created = await json<Application>(
      await expectStatus(await sp("POST", "/financing/v1/applications", { body: request }), 201),
    );
    expect(created).toMatchObject({
      stateReason: "PROCESSING_REDIRECT_NEEDED",
      customer: { fullName: "Jana Nováková", extraData: { transactionsNumber: 4 } },
      order: { deliveryCarrier: "PPL", merchantId: "", sentDate: null },
    });
    const duplicate = await sp("POST", "/financing/v1/applications", { body: request });
    expect((await json<Application>(await expectStatus(duplicate, 200))).id).toBe(created.id);
    await expectStatus(await sp("GET", app(created.id)), 200);
    expect((await submitGateway(created.gatewayRedirectUrl, { action: "confirm" })).status).toBe(303);
    const approved = await json<Application>(await expectStatus(await sp("GET", app(created.id)), 200));
    expect(approved).toMatchObject({ state: "READY", stateReason: "READY_TO_SHIP" });

    // Change the order (their answer: the order with applicationInfo), cancel an item.
    const changed = await sp("PUT", app(created.id, "/order"), {
      body: {
        reason: "the customer dropped the cable",
        order: {
          totalPrice: CZK(300_000),
          totalVat: [VAT(52_065)],
          items: [theirItem("TV-55", 2, 100_000, 17_355), theirItem("SB-1", 1, 100_000, 17_355)],
        },
      },
    });
    expect(await json<Info>(await expectStatus(changed, 200))).toMatchObject({
      applicationInfo: { state: "READY", stateReason: "READY_TO_SHIP" },
    });
    const cancelled = await sp("PUT", app(created.id, "/order/cancel"), {
      body: { items: [{ code: "SB-1", ean: null, quantity: null }], totalPrice: null },
    });
    expect((await json<Order>(await expectStatus(cancelled, 200))).items.map((i) => [i.code, i.state])).toEqual([
      ["TV-55", "PROCESSING"],
      ["SB-1", "CANCELLED"],
    ]);

    // Send one television with the invoice (text, the content alone), deliver everything with a proof.
    const sentRes = await sp("PUT", app(created.id, "/order/send"), {
      body: {
        items: [{ code: "TV-55", quantity: 1 }],
        document: document("INVOICE", "Invoice SP-48-1"),
        variableSymbol: "2027000048",
        specificSymbol: "48",
        sentDate: "2027-02-01",
        deliveryCarrier: "PPL",
        deliveryTrackingNumber: "PPL-48",
      },
    });
    const shipped = await json<Order & Info>(await expectStatus(sentRes, 200));
    expect(shipped).toMatchObject({
      applicationInfo: { stateReason: "READY_SHIPPED" },
      documents: [{ type: "INVOICE", file: { filename: "invoice.txt" } }],
    });
    const delivered = await sp("PUT", app(created.id, "/order/deliver"), {
      body: { items: [], deliveryDate: "2027-02-03", document: document("OTHER", "%PDF-1.4 proof of delivery") },
    });
    expect(await json<Order & Info>(await expectStatus(delivered, 200))).toMatchObject({
      state: "DELIVERED",
      deliveryDate: "2027-02-03",
      applicationInfo: { stateReason: "READY_DELIVERED" },
    });

    // Return one television with the credit note; a goodwill refund (ours: their document has none).
    const returned = await sp("PUT", app(created.id, "/order/return"), {
      body: {
        items: [{ code: "TV-55", quantity: 1 }],
        document: document("CREDIT_NOTE", "%PDF-1.4 credit note"),
        variableSymbol: "2027000048",
      },
    });
    expect((await json<Order>(await expectStatus(returned, 200))).documents).toHaveLength(3);
    const refund = await sp("POST", app(created.id, "/refunds"), { body: { totalPrice: CZK(5_000), reason: "late" } });
    await expectStatus(refund, 201);

    // Their order look-up.
    for (const query of ["orderNumber=SP-48-1", `orderVariableSymbol=2027000048&applicationId=${created.id}`]) {
      await expectStatus(await sp("GET", `/financing/v1/orders?${query}`), 200);
    }

    // A second application, cancelled with their reason; a third under manual review; a fourth expires.
    const second = await json<Application>(
      await expectStatus(await sp("POST", "/financing/v1/applications", { body: theirApplication("SP-48-2") }), 201),
    );
    // With an Idempotency-Key, as a retry sends it: the stored answer, replayed, is theirs too.
    const cancelRequest = {
      body: { reason: "APPLICATION_CANCELLED_BY_CUSTOMER", customReason: null },
      headers: { "Idempotency-Key": "sp-48-cancel" },
    };
    const withdrawn = await json(await expectStatus(await sp("PUT", app(second.id, "/cancel"), cancelRequest), 200));
    expect(withdrawn).toMatchObject({ state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" });
    const replayed = await expectStatus(await sp("PUT", app(second.id, "/cancel"), cancelRequest), 200);
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await json(replayed)).toEqual(withdrawn);
    const review = await json<Application>(
      await expectStatus(
        await sp("POST", "/financing/v1/applications", {
          body: theirApplication("SP-48-3", "jana+review@example.com"),
        }),
        201,
      ),
    );
    await submitGateway(review.gatewayRedirectUrl, { action: "confirm" });
    expect(await json(await expectStatus(await sp("GET", app(review.id)), 200))).toMatchObject({
      stateReason: "PROCESSING_VALIDATION_IN_PROGRESS",
    });
    const lapsing = await json<Application>(
      await expectStatus(await sp("POST", "/financing/v1/applications", { body: theirApplication("SP-48-4") }), 201),
    );
    const advanced = await sp("POST", `/financing/v1/sandbox/applications/${lapsing.id}/advance-time`, {
      body: { seconds: 4 * 86_400 },
    });
    expect(await json(await expectStatus(advanced, 200))).toMatchObject({ stateReason: "CANCELLED_EXPIRED" });
    expect(await json(await expectStatus(await sp("GET", app(lapsing.id)), 200))).toMatchObject({
      state: "CANCELLED",
      stateReason: "CANCELLED_NOT_PAID",
    });

    // Every error status: theirs (400, 404, 422) and the others an answer can have once the partner is known.
    const { customer, ...noCustomer } = theirApplication("SP-48-5");
    await expectStatus(
      await sp("POST", "/financing/v1/applications", {
        body: { ...noCustomer, customer: { ...customer, phone: null } },
      }),
      400,
    );
    await expectStatus(await sp("GET", "/financing/v1/orders"), 400);
    expect(await json(await expectStatus(await sp("GET", app("01J0000000000000000000000Z")), 404))).toMatchObject({
      errors: [{ code: "APPLICATION_NOT_FOUND", severity: "ERROR", ticketId: expect.any(String) }],
    });
    await expectStatus(await sp("GET", "/financing/v1/orders?orderNumber=NONE"), 404);
    // Paid: the sandbox closes and pays the partner's payouts now (an operation of ours alone), then the
    // application's payments, theirs.
    await expectStatus(await call("POST", "/financing/v1/sandbox/payouts/close", { token }), 200);
    expect(await json(await expectStatus(await sp("GET", app(created.id, "/payments")), 200))).toMatchObject({
      data: [{ applicationId: created.id, value: { currency: "CZK" } }],
    });
    expect(
      await json(await expectStatus(await sp("PUT", app(created.id, "/cancel"), { body: {} }), 422)),
    ).toMatchObject({
      errors: [{ code: "ORDER_ALREADY_SENT" }],
    });
    await expectStatus(await sp("PUT", app(second.id, "/cancel"), { body: {} }), 422);
    await expectStatus(
      await sp("PUT", app(created.id, "/order/send"), { body: "not json", headers: { "Content-Type": "text/plain" } }),
      415,
    );
    await expectStatus(await sp("POST", "/financing/v1/applications", { body: "x".repeat(MAX_BODY_BYTES + 1) }), 413);
    await expectStatus(await sp("GET", app(created.id), { vars: { RATE_LIMIT_REQUESTS: "1" } }), 429);
    // Without a token no partner is known: ours, as for anyone.
    const anonymous = await call("GET", app(created.id));
    expect(await json(await expectStatus(anonymous, 401))).toMatchObject({ error: "invalid_request" });

    // The notifications of every application, delivered: their ApplicationBaseResponse each.
    const events = await dbOf(partner)
      .prepare("SELECT id FROM events WHERE partner_id = ? ORDER BY id")
      .bind(partner.id)
      .all<{ id: string }>();
    await runBatch(
      QUEUE,
      events.results.map((e) => ({ body: { eventId: e.id } })),
    );
    expect(sent).toHaveLength(events.results.length);
    for (const notification of sent) {
      expectSkipPayBody(
        "ApplicationBaseResponse",
        JSON.parse(notification.body),
        `notification ${notification.headers.get("webhook-id")}`,
      );
    }
    const reasons = sent.map((n) => (JSON.parse(n.body) as { stateReason: string }).stateReason);
    expect(new Set(reasons)).toEqual(
      new Set([
        "PROCESSING_REDIRECT_NEEDED",
        "READY_TO_SHIP",
        "READY_SHIPPED",
        "READY_DELIVERED",
        "READY_PAID",
        "CANCELLED_NOT_PAID",
        "PROCESSING_VALIDATION_IN_PROGRESS",
      ]),
    );

    // 32 answers (every status below) and 11 notifications; none was refused, or the test failed where it was.
    const statuses = new Set(checked.flatMap((c) => /→ (\d+)$/.exec(c.what)?.[1] ?? []));
    expect([...statuses].sort()).toEqual(["200", "201", "400", "404", "413", "415", "422", "429"]);
    const bySchema = new Map<string, number>();
    for (const { schema } of checked) bySchema.set(schema, (bySchema.get(schema) ?? 0) + 1);
    const counts = [...bySchema].map(([schema, n]) => `${schema} ${n}`).join(", ");
    console.log(
      `Skip Pay's schemas, unknown fields refused: ${checked.length} of ${checked.length} bodies valid (${counts})`,
    );
    expect(checked).toHaveLength(43);
  });
});
