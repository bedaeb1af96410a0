import { describe, expect, it } from "vitest";
import { readSkipPayRequest } from "../../src/wire/skip-pay-requests";

describe("Skip Pay's requests read into ours", () => {
  const request = readSkipPayRequest;

  it("reads null as absent, at any depth, and leaves array elements as they are", () => {
    expect(
      request("createApplication", {
        order: { deliveryCarrier: null, items: [{ ean: null, code: "A" }, null] },
        x: null,
      }),
    ).toEqual({
      order: { items: [{ code: "A" }, null] },
    });
  });

  it("reads an empty item list as the whole order for cancel, send and deliver, not for return (an amount-only refund there)", () => {
    for (const operationId of ["cancelItems", "sendItems", "deliverItems"]) {
      expect(request(operationId, { items: [], sentDate: "2026-11-23" })).toEqual({ sentDate: "2026-11-23" });
    }
    expect(request("returnItems", { items: [], totalPrice: { amount: 1, currency: "CZK" } })).toEqual({
      items: [],
      totalPrice: { amount: 1, currency: "CZK" },
    });
  });

  it("names a text file sent as content alone; leaves a PDF to be typed by its bytes and binary content alone", () => {
    const text = btoa("File contents.");
    expect(request("sendItems", { document: { type: "INVOICE", file: text } })).toEqual({
      document: { type: "INVOICE", file: { filename: "invoice.txt", content: text } },
    });
    const pdf = btoa("%PDF-1.4 invoice");
    expect(request("returnItems", { document: { type: "CREDIT_NOTE", file: pdf } })).toEqual({
      document: { type: "CREDIT_NOTE", file: pdf },
    });
    const binary = btoa("MZ\u0000\u0001");
    expect(request("deliverItems", { document: { type: "OTHER", file: binary } })).toEqual({
      document: { type: "OTHER", file: binary },
    });
  });

  it("reads precheck's total from its order, for DEFERRED_PAYMENT unless a type is asked", () => {
    const total = { amount: 12590, currency: "CZK" };
    expect(
      request("precheck", { customer: { email: "a@b.cz", phone: "+420123456789" }, order: { totalPrice: total } }),
    ).toMatchObject({
      totalPrice: total,
      type: "DEFERRED_PAYMENT",
    });
    expect(request("precheck", { order: { totalPrice: total }, type: "PAY_IN_THREE" })).toMatchObject({
      type: "PAY_IN_THREE",
    });
  });

  it("reads the customer's extraData as our fraudPreventionData", () => {
    const sum = { amount: 5, currency: "CZK" };
    expect(
      request("createApplication", {
        customer: { extraData: { transactionsNumber: 3, transactionsSum: sum, tags: ["x"] } },
      }),
    ).toEqual({
      customer: {
        extraData: { transactionsNumber: 3, transactionsSum: sum, tags: ["x"] },
        fraudPreventionData: { transactionsNumber: 3, transactionsSum: sum },
      },
    });
  });
});
