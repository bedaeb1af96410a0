import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { countRows } from "../../support/factories";

const PRECHECK = "/financing/v1/precheck";
const CZK = (amount: number) => ({ amount, currency: "CZK" });

describe("POST /financing/v1/precheck", () => {
  it("answers each type's offer from the decision's limits (CZK 50,000 pay later, 100,000 in three) and stores nothing", async () => {
    const { partner, token } = await signIn();
    const tables = ["applications", "events", "idempotency_keys"];
    const before = await Promise.all(tables.map((t) => countRows(t)));

    const res = await call("POST", PRECHECK, { token, body: { totalPrice: CZK(6_000_000) } });

    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      offers: [
        { type: "DEFERRED_PAYMENT", eligible: false, maxAmount: 5_000_000, reasons: ["AMOUNT_OVER_LIMIT"] },
        { type: "PAY_IN_THREE", eligible: true, maxAmount: 10_000_000 },
      ],
    });
    expect(await Promise.all(tables.map((t) => countRows(t)))).toEqual(before);
    expect(await countRows("applications", "partner_id = ?", partner.id)).toBe(0);
  });

  it("refuses a total that create refuses (400 NON_POSITIVE_TOTAL), never calling it eligible", async () => {
    const { token } = await signIn();
    for (const amount of [0, -100]) {
      const res = await call("POST", PRECHECK, { token, body: { totalPrice: CZK(amount) } });
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({
        error: "invalid_request",
        errors: [{ code: "NON_POSITIVE_TOTAL", attribute: "totalPrice.amount" }],
      });
    }
  });

  it("answers only the type asked, and a currency nothing is financed in as not eligible", async () => {
    const { token } = await signIn();
    const res = await call("POST", PRECHECK, {
      token,
      body: { totalPrice: { amount: 100, currency: "USD" }, type: "PAY_IN_THREE" },
    });
    expect(await json(res)).toEqual({
      offers: [{ type: "PAY_IN_THREE", eligible: false, reasons: ["NO_LIMIT_FOR_CURRENCY"] }],
    });
  });

  it("takes the sandbox's e-mail scenarios only in the sandbox", async () => {
    const { token } = await signIn();
    const body = { totalPrice: CZK(1000), type: "DEFERRED_PAYMENT", customer: { email: "jana+reject@example.com" } };
    expect(await json(await call("POST", PRECHECK, { token, body }))).toEqual({
      offers: [{ type: "DEFERRED_PAYMENT", eligible: false, maxAmount: 5_000_000, reasons: ["SANDBOX_REJECT"] }],
    });
    const production = await call("POST", PRECHECK, { token, body, vars: { SANDBOX: "false" } });
    expect(await json(production)).toEqual({
      offers: [{ type: "DEFERRED_PAYMENT", eligible: true, maxAmount: 5_000_000 }],
    });
  });

  it("is rate-limited like every call, needs a token, and refuses a malformed request (400)", async () => {
    const { token } = await signIn();
    const once = { token, body: { totalPrice: CZK(1) }, vars: { RATE_LIMIT_REQUESTS: "1" } };
    await call("POST", PRECHECK, once);
    const limited = await call("POST", PRECHECK, once);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("Retry-After")).toMatch(/^\d+$/);
    expect((await call("POST", PRECHECK, { body: { totalPrice: CZK(1) } })).status).toBe(401);
    const bad = await call("POST", PRECHECK, { token, body: { totalPrice: { amount: 1.5, currency: "czk" } } });
    expect(bad.status).toBe(400);
  });
});
