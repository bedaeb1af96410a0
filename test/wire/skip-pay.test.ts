import { describe, expect, it } from "vitest";
import { STATE_REASONS } from "../../src/domain/application-state";
import examples from "../../src/routes/examples.json";
import { payments, skipPay, stateReason } from "../../src/wire/skip-pay";
import { expectSkipPayBody, skipPayProblems } from "../support/skippay-check";

const REQUEST_ID = "8f14e45f-ceea-467e-a53b-2f6a1d3c1a9e";
const answer = (operationId: string, body: unknown) => skipPay.answer(operationId, body, REQUEST_ID) as never;

/** Our recorded answers (src/routes/examples.json) and the schema of theirs each becomes. */
const ANSWERS = [
  ["createApplication", examples.createdApplication, "ApplicationResponse"],
  ["getApplication", examples.application, "ApplicationResponse"],
  ["cancelApplication", examples.cancelledApplication, "ApplicationResponse"],
  ["getApplication", examples.extendedApplication, "ApplicationResponse"],
  ["changeOrder", examples.changedApplication, "OrderExtendedResponse"],
  ["sendItems", examples.sentOrder, "OrderExtendedResponse"],
  ["returnItems", examples.returnedOrder, "OrderExtendedResponse"],
  ["getOrder", examples.sentOrder, "OrderExtendedResponse"],
  ["precheck", examples.precheckResult, "PrecheckResultsResponse"],
  ["login", examples.loginResponse, "PartnerLoginResult"],
  ["getHealth", examples.health, "HealthCheckResponse"],
] as const;

describe("the oracle: Skip Pay's schemas as their SDK reads a body", () => {
  it("refuses what their SDK refuses, and takes what it takes", () => {
    const order = answer("sendItems", examples.sentOrder) as Record<string, unknown>;
    const { merchantId: _, ...withoutMerchant } = order;
    const application = answer("getApplication", examples.application) as { customer: object };
    const refused: [string, unknown][] = [
      ["ErrorsResponse", { errors: [], requestId: REQUEST_ID }],
      ["OrderExtendedResponse", withoutMerchant],
      ["OrderExtendedResponse", { ...order, deliveryTrackingNumber: null }],
      ["OrderExtendedResponse", { ...order, deliveryCarrier: "Zásilkovna" }],
      ["OrderExtendedResponse", { ...order, deliveryCarrier: { carrierId: "PPL" } }],
      ["OrderExtendedResponse", { ...order, sentDate: "2026-11-23T10:15:00+00:00" }],
      ["ApplicationResponse", { ...application, customer: { ...application.customer, type: "PERSON" } }],
      ["ApplicationBaseResponse", { id: "1", state: "CANCELLED", stateReason: "CANCELLED_EXPIRED" }],
    ];
    for (const [schema, body] of refused) expect(skipPayProblems(schema, body), JSON.stringify(body)).not.toEqual([]);
    expect(skipPayProblems("OrderExtendedResponse", { ...order, sentDate: null, deliveryCarrier: "PPL" })).toEqual([]);
  });
});

describe("Skip Pay's wire: answers", () => {
  it.each(
    ANSWERS,
  )("%s: our answer is refused by their SDK as it is, theirs once mapped", (operationId, ours, schema) => {
    if (operationId !== "login") expect(skipPayProblems(schema, ours)).not.toEqual([]);
    expectSkipPayBody(schema, answer(operationId, ours), operationId);
  });

  it("fills what theirs requires from what ours has: names, unit prices, order-level dates and tracking, merchant", () => {
    const order = {
      ...examples.sentOrder,
      deliveryCarrier: { carrierId: "DPD" },
      addresses: [{ city: "Brno", addressType: "DELIVERY" }, { city: "Praha" }],
      items: [
        {
          code: "A",
          name: "A",
          type: "PHYSICAL",
          quantity: 3,
          state: "SENT",
          sentDate: "2026-11-23",
          totalPrice: { amount: 100, currency: "CZK" },
          totalVat: { vatRate: 21, amount: 17, currency: "CZK" },
          deliveryTrackingNumber: "T-1",
        },
        {
          code: "B",
          name: "B",
          type: "PHYSICAL",
          quantity: 1,
          state: "SENT",
          sentDate: "2026-11-23",
          totalPrice: { amount: 50, currency: "CZK" },
          totalVat: { vatRate: 21, amount: 9, currency: "CZK" },
          deliveryTrackingNumber: "T-1",
        },
        {
          code: "C",
          name: "C",
          type: "PHYSICAL",
          quantity: 1,
          state: "CANCELLED",
          totalPrice: { amount: 0, currency: "CZK" },
          totalVat: { vatRate: 21, amount: 0, currency: "CZK" },
        },
      ],
    };
    const theirs = answer("sendItems", order) as Record<string, unknown> & { items: Record<string, unknown>[] };
    expectSkipPayBody("OrderExtendedResponse", theirs, "a shipment of the whole order");
    expect(theirs).toMatchObject({
      deliveryCarrier: "DPD",
      addresses: [{ city: "Brno", addressType: "DELIVERY", country: "", streetAddress: "", zip: "" }],
      sentDate: "2026-11-23",
      deliveryDate: null,
      deliveryTrackingNumber: "T-1",
      merchantId: "",
    });
    expect(theirs).not.toHaveProperty("refundedPrice");
    expect(theirs.items[0]).toMatchObject({
      unitPrice: { amount: 33, currency: "CZK" },
      unitVat: { amount: 6, currency: "CZK", vatRate: 21 },
      deliveryDate: null,
    });
    expect(theirs.items[2]).toMatchObject({ sentDate: null, deliveryTrackingNumber: "" });

    // Lines sent apart: the order as a whole has no one date or tracking number; a carrier of no list of theirs is left out.
    order.items[1] = { ...order.items[1]!, sentDate: "2026-11-24", deliveryTrackingNumber: "T-2" };
    const apart = answer("sendItems", { ...order, deliveryCarrier: { carrierId: "Zásilkovna" } });
    expect(apart).toMatchObject({ sentDate: null, deliveryTrackingNumber: "" });
    expect(apart).not.toHaveProperty("deliveryCarrier");

    const customer = answer("getApplication", {
      ...examples.application,
      customer: {
        firstName: "Jana",
        lastName: "Nováková",
        email: "j@example.com",
        phone: "+420777123456",
        fraudPreventionData: { transactionsNumber: 0, transactionsSum: { amount: 5, currency: "CZK" } },
      },
    });
    expect((customer as { customer: unknown }).customer).toEqual({
      email: "j@example.com",
      phone: "+420777123456",
      firstName: "Jana",
      lastName: "Nováková",
      fullName: "Jana Nováková",
      extraData: { transactionsSum: { amount: 5, currency: "CZK" } },
    });
  });

  it("answers precheck as results, certain either way, named by the request", () => {
    const theirs = answer("precheck", {
      offers: [
        { type: "DEFERRED_PAYMENT", eligible: false, reasons: ["AMOUNT_OVER_LIMIT"] },
        { type: "PAY_IN_THREE", eligible: true, maxAmount: 100 },
      ],
    });
    expect(theirs).toEqual({
      id: REQUEST_ID,
      results: [
        {
          type: "DEFERRED_PAYMENT",
          recommendation: false,
          probabilityOfApproval: 0,
          code: "INSUFFICIENT_LIMIT",
          PrecheckResultResponseSerializer: "UNKNOWN",
          message: "AMOUNT_OVER_LIMIT",
        },
        {
          type: "PAY_IN_THREE",
          recommendation: true,
          probabilityOfApproval: 1,
          code: "OK",
          PrecheckResultResponseSerializer: "UNKNOWN",
        },
      ],
    });
    expectSkipPayBody("PrecheckResultsResponse", theirs, "precheck");
  });

  it("answers the operations they do not have as ours", () => {
    expect(answer("createRefund", examples.refund)).toBe(examples.refund);
    expect(answer("listApplications", examples.applicationPage)).toBe(examples.applicationPage);
    expect(answer("extendAuthorization", examples.extendedApplication)).toBe(examples.extendedApplication);
  });

  it("presents payments as theirs, dates as dates, ready for the payments operation", () => {
    const ours = {
      data: [
        {
          paymentId: "01M8EY5QWW",
          date: "2026-11-24T00:00:00+01:00",
          applicationId: "01M8EY5QNT",
          value: { amount: 25042_00, currency: "CZK" },
        },
        {
          paymentId: "01M8EY5QWX",
          date: "2026-11-25",
          applicationId: "01M8EY5QNT",
          value: { amount: -100, currency: "CZK" },
        },
      ],
      pagingInfo: { itemsPerPage: 20, nextPage: "/financing/v1/applications/01M8EY5QNT/payments?after=01M8EY5QWX" },
    };
    const theirs = payments(ours);
    expectSkipPayBody("Getpaymentsonspecificapplicationresponse", theirs, "payments");
    expect(theirs.data.map((p) => p.date)).toEqual(["2026-11-24", "2026-11-25"]);
    expectSkipPayBody("Getpaymentsonspecificapplicationresponse", payments({ data: [] }), "no payments");
  });
});

describe("Skip Pay's wire: errors and notifications", () => {
  const error = (error: string, description: string, errors?: object[]) =>
    skipPay.error({
      error,
      error_description: description,
      requestId: REQUEST_ID,
      ...(errors ? { errors } : {}),
    } as never);

  it("writes every error as their ErrorsResponse, with the request id as each entry's ticketId", () => {
    const invalid = error("invalid_request", "order.number: is required", [
      { code: "REQUIRED", message: "is required", severity: "ERROR", attribute: "order.number" },
    ]);
    expect(invalid).toEqual({
      errors: [
        {
          code: "REQUIRED",
          message: "is required",
          severity: "ERROR",
          attribute: "order.number",
          ticketId: REQUEST_ID,
        },
      ],
    });
    expect(error("not_found", "application not found")).toEqual({
      errors: [
        { code: "APPLICATION_NOT_FOUND", message: "application not found", severity: "ERROR", ticketId: REQUEST_ID },
      ],
    });
    expect(error("not_found", "order not found")).toMatchObject({ errors: [{ code: "OBJECT_NOT_FOUND" }] });
    for (const [status, code] of [
      [413, "request_too_large"],
      [415, "unsupported_media_type"],
      [429, "rate_limit_exceeded"],
      [500, "server_error"],
      [503, "service_unavailable"],
    ] as const) {
      const body = error(code, "why");
      expect(body).toMatchObject({ errors: [{ code: code.toUpperCase(), message: "why" }] });
      expectSkipPayBody("ErrorsResponse", body, `${status}`);
    }
  });

  it("sends a notification as their ApplicationBaseResponse, each reason of ours as one of theirs", () => {
    for (const reason of STATE_REASONS) {
      const body = skipPay.notification({
        id: "01M8EY5QNT",
        state: "READY",
        stateReason: reason,
        eventId: "01M8EY5QNU",
        eventType: "APPLICATION_STATE_CHANGED",
        sequence: 2,
        occurredAt: "2026-11-23T10:15:00+00:00",
      });
      expectSkipPayBody("ApplicationBaseResponse", body, reason);
      expect(body).toEqual({ id: "01M8EY5QNT", state: "READY", stateReason: stateReason(reason) });
    }
    expect(stateReason("CANCELLED_EXPIRED")).toBe("CANCELLED_NOT_PAID");
    expect(stateReason("PROCESSING_MANUAL_REVIEW")).toBe("PROCESSING_VALIDATION_IN_PROGRESS");
    expect(stateReason("READY_DELIVERED")).toBe("READY_DELIVERED");
  });
});
