import { afterEach, describe, expect, it, vi } from "vitest";
import { call, json, signIn } from "../../support/api";
import {
  applicationCount,
  applicationRequest,
  createApplication,
  eventsOf,
  nineLines,
  REMOVE,
  withPath,
} from "../../support/factories";
import { HOSTILE_URLS } from "../../support/hostile-urls";
import { dbOfApplication } from "../../support/shards";

const CREATE = "/financing/v1/applications";

interface ErrorResponse {
  error: string;
  errors: { code: string; attribute?: string; message: string; severity: string }[];
}

async function expectRefused(
  token: string,
  partnerId: string,
  body: unknown,
  code: string,
  attribute: string,
  origin = "",
  vars?: Record<string, string>,
) {
  const res = await call("POST", `${origin}${CREATE}`, { token, body, ...(vars ? { vars } : {}) });
  expect(res.status).toBe(400);
  const error = await json<ErrorResponse>(res);
  expect(error.error).toBe("invalid_request");
  expect(error.errors).toContainEqual(expect.objectContaining({ code, attribute, severity: "ERROR" }));
  expect(await applicationCount(partnerId)).toBe(0);
}

afterEach(() => {
  vi.useRealTimers();
});

describe("POST /financing/v1/applications creates", () => {
  it("an application in PROCESSING with Location and gatewayRedirectUrl", async () => {
    const { partner, token } = await signIn();
    const res = await call("POST", CREATE, { token, body: applicationRequest() });
    expect(res.status).toBe(201);
    const app = await json<{ id: string; gatewayRedirectUrl: string; state: string; stateReason: string }>(res);
    expect(app.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(res.headers.get("Location")).toBe(`http://api.test/financing/v1/applications/${app.id}`);
    expect(app.state).toBe("PROCESSING");
    expect(app.stateReason).toBe("PROCESSING_REDIRECT_NEEDED");
    // A link names its shard, but shard 0's (the links made before shards).
    const shard = partner.shard === 0 ? "" : `${partner.shard}-`;
    expect(app.gatewayRedirectUrl).toMatch(new RegExp(`^http://api\\.test/gateway/${app.id}/${shard}[0-9a-f]{40}$`));
    expect(await applicationCount(partner.id)).toBe(1);
    expect(await eventsOf(app.id)).toEqual([
      { sequence: 1, state: "PROCESSING", stateReason: "PROCESSING_REDIRECT_NEEDED" },
    ]);
  });

  it("answers with every field as sent, and GET answers the same", async () => {
    const { token } = await signIn();
    const request = applicationRequest();
    const res = await call("POST", CREATE, { token, body: request });
    const created = await json<Record<string, unknown> & { id: string }>(res);
    const read = await json(await call("GET", `${CREATE}/${created.id}`, { token }));
    expect(read).toEqual(created);
    expect(Date.parse(created.expiresAt as string) - Date.parse(created.createdAt as string)).toBe(72 * 3_600_000);
    const { order, ...rest } = request;
    expect(created).toEqual({
      ...rest,
      id: created.id,
      state: "PROCESSING",
      stateReason: "PROCESSING_REDIRECT_NEEDED",
      gatewayRedirectUrl: created.gatewayRedirectUrl,
      // The customer has 72 hours to decide.
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
      updatedAt: created.createdAt,
      order: {
        ...order,
        // Date-times are answered in the service time zone, without fractions.
        reservationDate: "2026-11-22T09:15:00+00:00",
        state: "PROCESSING",
        refundedPrice: { amount: 0, currency: "CZK" },
        refundablePrice: { amount: 0, currency: "CZK" },
        documents: [],
        items: order.items.map((item) => ({ ...item, state: "PROCESSING" })),
      },
    });
  });

  it("prints date-times in SERVICE_TIMEZONE with its offset", async () => {
    const { token } = await signIn();
    const res = await call("POST", CREATE, {
      token,
      body: applicationRequest(),
      vars: { SERVICE_TIMEZONE: "Europe/Prague" },
    });
    const app = await json<{ order: { reservationDate: string }; createdAt: string }>(res);
    expect(app.order.reservationDate).toBe("2026-11-22T10:15:00+01:00");
    expect(app.createdAt).toMatch(/\+01:00$/);
  });

  it("accepts any number of fraction digits and drops them on output", async () => {
    const { token } = await signIn();
    const body = withPath(applicationRequest(), ["order", "reservationDate"], "2026-07-01T12:00:00.123456789Z");
    const app = await json<{ order: { reservationDate: string } }>(await call("POST", CREATE, { token, body }));
    expect(app.order.reservationDate).toBe("2026-07-01T12:00:00+00:00");
  });

  it("applies defaults: quantity 1, item type PHYSICAL, agreement false, no variable symbols", async () => {
    const { token } = await signIn();
    let body = withPath(applicationRequest(), ["agreementTermsAndConditions"], REMOVE);
    body = withPath(body, ["order", "variableSymbols"], REMOVE);
    body = withPath(body, ["order", "items", 1, "quantity"], REMOVE);
    body = withPath(body, ["order", "items", 1, "type"], REMOVE);
    const app = await json<{
      agreementTermsAndConditions: boolean;
      order: { variableSymbols: string[]; items: { quantity: number; type: string }[] };
    }>(await call("POST", CREATE, { token, body }));
    expect(app.agreementTermsAndConditions).toBe(false);
    expect(app.order.variableSymbols).toEqual([]);
    expect(app.order.items[1]).toMatchObject({ quantity: 1, type: "PHYSICAL" });
  });

  it("accepts firstName with lastName instead of fullName", async () => {
    const { token } = await signIn();
    let body = withPath(applicationRequest(), ["customer", "fullName"], REMOVE);
    body = withPath(body, ["customer", "firstName"], "Jana");
    body = withPath(body, ["customer", "lastName"], "Nováková");
    expect((await call("POST", CREATE, { token, body })).status).toBe(201);
  });

  it("ignores unknown fields: neither stored nor echoed", async () => {
    const { token } = await signIn();
    let body = withPath(applicationRequest(), ["surprise"], { nested: true });
    body = withPath(body, ["order", "items", 0, "colourOfBox"], "red");
    const res = await call("POST", CREATE, { token, body });
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).not.toContain("surprise");
    expect(text).not.toContain("colourOfBox");
    const stored = await (await dbOfApplication(JSON.parse(text).id))
      .prepare("SELECT * FROM applications WHERE id = ?")
      .bind(JSON.parse(text).id)
      .first();
    expect(JSON.stringify(stored)).not.toContain("surprise");
  });

  it("accepts negative amounts for DISCOUNT items", async () => {
    const { token } = await signIn();
    const body = applicationRequest();
    body.order.items.push({
      code: "DISC",
      name: "Loyalty discount",
      type: "DISCOUNT",
      quantity: 1,
      totalPrice: { amount: -12000, currency: "CZK" },
      totalVat: { vatRate: 21, amount: -2083, currency: "CZK" },
    });
    body.order.totalPrice.amount = 188000;
    body.order.totalVat[0]!.amount = 29317;
    expect((await call("POST", CREATE, { token, body })).status).toBe(201);
  });

  it("as many lines as sent, in their order (more than one multi-row insert holds)", async () => {
    const { token } = await signIn();
    const { id } = await createApplication(token, nineLines());
    const view = await json<{ order: { items: { code: string }[] } }>(await call("GET", `${CREATE}/${id}`, { token }));
    expect(view.order.items.map((item) => item.code)).toEqual(nineLines().order.items.map((item) => item.code));
  });
});

describe("POST /financing/v1/applications refuses with 400 and stores nothing when", () => {
  it.each([
    [["type"], "type"],
    [["customer"], "customer"],
    [["customer", "email"], "customer.email"],
    [["customer", "phone"], "customer.phone"],
    [["customer", "fullName"], "customer.fullName"],
    [["order"], "order"],
    [["order", "number"], "order.number"],
    [["order", "totalPrice"], "order.totalPrice"],
    [["order", "totalVat"], "order.totalVat"],
    [["order", "items"], "order.items"],
    [["order", "items", 0, "code"], "order.items[0].code"],
    [["order", "items", 0, "name"], "order.items[0].name"],
    [["order", "items", 0, "totalPrice"], "order.items[0].totalPrice"],
    [["order", "items", 0, "totalVat"], "order.items[0].totalVat"],
    [["order", "totalPrice", "amount"], "order.totalPrice.amount"],
    [["order", "totalPrice", "currency"], "order.totalPrice.currency"],
    [["merchantUrls"], "merchantUrls"],
    [["merchantUrls", "approvedRedirect"], "merchantUrls.approvedRedirect"],
    [["merchantUrls", "rejectedRedirect"], "merchantUrls.rejectedRedirect"],
    [["merchantUrls", "notificationEndpoint"], "merchantUrls.notificationEndpoint"],
  ])("%j is missing (REQUIRED at %s)", async (path, attribute) => {
    const { partner, token } = await signIn();
    await expectRefused(token, partner.id, withPath(applicationRequest(), path, REMOVE), "REQUIRED", attribute);
  });

  it("the body is empty: every required top-level field is named", async () => {
    const { partner, token } = await signIn();
    const res = await call("POST", CREATE, { token, body: "" });
    expect(res.status).toBe(400);
    const { errors } = await json<ErrorResponse>(res);
    expect(errors.map((e) => e.attribute)).toEqual(["type", "customer", "order", "merchantUrls"]);
    expect(await applicationCount(partner.id)).toBe(0);
  });

  it("the order has no items", async () => {
    const { partner, token } = await signIn();
    await expectRefused(
      token,
      partner.id,
      withPath(applicationRequest(), ["order", "items"], []),
      "INVALID_VALUE",
      "order.items",
    );
  });

  it.each([
    [["type"], "INSTANT_LOAN", "type"],
    [["agreementTermsAndConditions"], "yes", "agreementTermsAndConditions"],
    [["customer", "email"], "jana.example.com", "customer.email"],
    [["customer", "phone"], "777123456", "customer.phone"],
    [["customer", "phone"], "+42077712345678901", "customer.phone"],
    [["customer", "phone"], "+420 777 123 456", "customer.phone"],
    [["customer", "fullName"], "", "customer.fullName"],
    [["customer", "fraudPreventionData", "transactionsNumber"], -1, "customer.fraudPreventionData.transactionsNumber"],
    [["order", "number"], "x".repeat(101), "order.number"],
    [["order", "reservationDate"], "2026-11-22T10:15:00", "order.reservationDate"],
    [["order", "reservationDate"], "22.11.2026", "order.reservationDate"],
    [["order", "totalPrice", "amount"], 2000.5, "order.totalPrice.amount"],
    [["order", "totalPrice", "amount"], "200000", "order.totalPrice.amount"],
    [["order", "totalPrice", "currency"], "czk", "order.totalPrice.currency"],
    [["order", "items", 0, "quantity"], 0, "order.items[0].quantity"],
    [["order", "items", 0, "quantity"], 1.5, "order.items[0].quantity"],
    [["order", "items", 0, "type"], "SERVICE", "order.items[0].type"],
    [["order", "items", 0, "productUrl"], "not a url", "order.items[0].productUrl"],
    [["order", "items", 0, "totalVat", "vatRate"], 101, "order.items[0].totalVat.vatRate"],
    [["order", "addresses", 0, "country"], "XX", "order.addresses[0].country"],
    [["order", "addresses", 0, "country"], "cz", "order.addresses[0].country"],
    [["order", "addresses", 0, "addressType"], "HOME", "order.addresses[0].addressType"],
    [["order", "variableSymbols", 0], "12345678901", "order.variableSymbols[0]"],
    [["order", "variableSymbols", 0], "VS-1", "order.variableSymbols[0]"],
    [["order", "channel"], "PHONE", "order.channel"],
    [["merchantUrls", "approvedRedirect"], "ftp://shop.example.com/x", "merchantUrls.approvedRedirect"],
    [["merchantUrls", "notificationEndpoint"], "/relative/path", "merchantUrls.notificationEndpoint"],
  ])("%j is %j (INVALID_VALUE at %s)", async (path, value, attribute) => {
    const { partner, token } = await signIn();
    await expectRefused(token, partner.id, withPath(applicationRequest(), path, value), "INVALID_VALUE", attribute);
  });

  it.each([
    ["approvedRedirect", "http://shop.example.com/ok"],
    ["rejectedRedirect", "https://localhost/rejected"],
    ["notificationEndpoint", "https://127.0.0.1:8080/hook"],
  ])("HTTPS is required and merchantUrls.%s is %s", async (name, value) => {
    const { partner, token } = await signIn();
    const body = withPath(applicationRequest(), ["merchantUrls", name], value);
    await expectRefused(token, partner.id, body, "INVALID_VALUE", `merchantUrls.${name}`, "https://api.test", {
      REQUIRE_HTTPS: "true",
    });
    // Where HTTPS is not required (local development), the same URL is accepted.
    expect((await call("POST", CREATE, { token, body })).status).toBe(201);
  });

  it.each(
    HOSTILE_URLS,
  )("HTTPS is required and the notificationEndpoint is %s (%s): 400 INVALID_VALUE, nothing stored", async (url) => {
    const { partner, token } = await signIn();
    const body = withPath(applicationRequest(), ["merchantUrls", "notificationEndpoint"], url);
    await expectRefused(
      token,
      partner.id,
      body,
      "INVALID_VALUE",
      "merchantUrls.notificationEndpoint",
      "https://api.test",
      {
        REQUIRE_HTTPS: "true",
      },
    );
  });

  it("checks the redirect URLs the same way: no open redirect into a network", async () => {
    const { partner, token } = await signIn();
    for (const [name, url] of [
      ["approvedRedirect", "https://[::ffff:192.168.0.1]/ok"],
      ["rejectedRedirect", "https://2130706433/no"],
    ]) {
      const body = withPath(applicationRequest(), ["merchantUrls", name!], url);
      await expectRefused(token, partner.id, body, "INVALID_VALUE", `merchantUrls.${name}`, "https://api.test", {
        REQUIRE_HTTPS: "true",
      });
    }
  });

  it("accepts an operator-allowed port where HTTPS is required", async () => {
    const { token } = await signIn();
    const body = withPath(
      applicationRequest(),
      ["merchantUrls", "notificationEndpoint"],
      "https://shop.example.com:8443/n",
    );
    const vars = { REQUIRE_HTTPS: "true", ALLOWED_URL_PORTS: "8443" };
    expect((await call("POST", `https://api.test${CREATE}`, { token, body, vars })).status).toBe(201);
  });

  describe("the amounts do not add up", () => {
    it("a currency differs from the order's (CURRENCY_MISMATCH)", async () => {
      const { partner, token } = await signIn();
      const body = withPath(applicationRequest(), ["order", "items", 1, "totalPrice", "currency"], "EUR");
      await expectRefused(token, partner.id, body, "CURRENCY_MISMATCH", "order.items[1].totalPrice.currency");
    });

    it("the order total is not the sum of the items (TOTAL_PRICE_MISMATCH)", async () => {
      const { partner, token } = await signIn();
      const body = withPath(applicationRequest(), ["order", "totalPrice", "amount"], 200001);
      await expectRefused(token, partner.id, body, "TOTAL_PRICE_MISMATCH", "order.totalPrice.amount");
    });

    it("an item total is not unit price × quantity (UNIT_PRICE_MISMATCH)", async () => {
      const { partner, token } = await signIn();
      const body = withPath(applicationRequest(), ["order", "items", 0, "unitPrice", "amount"], 75000);
      await expectRefused(token, partner.id, body, "UNIT_PRICE_MISMATCH", "order.items[0].totalPrice.amount");
    });

    it("the order VAT is not the items' VAT per rate (VAT_MISMATCH)", async () => {
      const { partner, token } = await signIn();
      const body = withPath(applicationRequest(), ["order", "totalVat", 1, "amount"], 1700);
      await expectRefused(token, partner.id, body, "VAT_MISMATCH", "order.totalVat");
    });

    it("an item other than a DISCOUNT is negative (NEGATIVE_AMOUNT)", async () => {
      const { partner, token } = await signIn();
      const body = applicationRequest();
      body.order.items[2]!.totalPrice.amount = -32000;
      body.order.items[2]!.totalVat.amount = -5020;
      body.order.totalPrice.amount = 136000;
      body.order.totalVat[0]!.amount = 21360;
      await expectRefused(token, partner.id, body, "NEGATIVE_AMOUNT", "order.items[2].totalPrice.amount");
    });

    it("the order total is not positive (NON_POSITIVE_TOTAL)", async () => {
      const { partner, token } = await signIn();
      const body = applicationRequest();
      body.order.items = [
        {
          ...body.order.items[1]!,
          type: "DISCOUNT",
          totalPrice: { amount: -100, currency: "CZK" },
          totalVat: { vatRate: 12, amount: -11, currency: "CZK" },
        },
      ];
      body.order.totalPrice.amount = -100;
      body.order.totalVat = [{ vatRate: 12, amount: -11, currency: "CZK" }];
      await expectRefused(token, partner.id, body, "NON_POSITIVE_TOTAL", "order.totalPrice.amount");
    });

    it("several rules are broken: every one is reported at once", async () => {
      const { partner, token } = await signIn();
      let body = withPath(applicationRequest(), ["order", "totalPrice", "amount"], 1);
      body = withPath(body, ["order", "items", 0, "unitPrice", "amount"], 1);
      body = withPath(body, ["order", "totalVat", 0, "currency"], "EUR");
      const res = await call("POST", CREATE, { token, body });
      expect(res.status).toBe(400);
      const codes = (await json<ErrorResponse>(res)).errors.map((e) => e.code).sort();
      expect(codes).toEqual(["CURRENCY_MISMATCH", "TOTAL_PRICE_MISMATCH", "UNIT_PRICE_MISMATCH"]);
      expect(await applicationCount(partner.id)).toBe(0);
    });
  });
});

describe("the duplicate check", () => {
  const T0 = new Date("2027-01-10T12:00:00Z").getTime();
  const at = (ms: number) => vi.setSystemTime(new Date(T0 + ms));

  async function duplicateAfter(ms: number) {
    vi.useFakeTimers({ toFake: ["Date"] });
    at(0);
    const { partner, token } = await signIn();
    const body = applicationRequest();
    const first = await call("POST", CREATE, { token, body });
    at(ms);
    const second = await call("POST", CREATE, { token, body });
    return {
      partner,
      first: await json<{ id: string }>(first),
      second,
      secondBody: await json<{ id: string }>(second),
    };
  }

  it("answers 200 with the earlier application inside 20 minutes (at 19:59), creating nothing", async () => {
    const { partner, first, second, secondBody } = await duplicateAfter(19 * 60_000 + 59_000);
    expect(second.status).toBe(200);
    expect(second.headers.get("Location")).toBeNull();
    expect(secondBody.id).toBe(first.id);
    expect(await applicationCount(partner.id)).toBe(1);
    expect(await eventsOf(first.id)).toHaveLength(1);
  });

  it("creates a new application after 20 minutes (at 20:01)", async () => {
    const { partner, first, second, secondBody } = await duplicateAfter(20 * 60_000 + 1_000);
    expect(second.status).toBe(201);
    expect(secondBody.id).not.toBe(first.id);
    expect(await applicationCount(partner.id)).toBe(2);
  });

  it("keeps the newer application as the one duplicates match after the window moved on", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    at(0);
    const { token } = await signIn();
    const body = applicationRequest();
    await call("POST", CREATE, { token, body });
    at(21 * 60_000);
    const second = await json<{ id: string }>(await call("POST", CREATE, { token, body }));
    at(30 * 60_000);
    const third = await call("POST", CREATE, { token, body });
    expect(third.status).toBe(200);
    expect((await json<{ id: string }>(third)).id).toBe(second.id);
  });

  it.each([
    ["type", ["type"], "PAY_IN_THREE"],
    ["order number", ["order", "number"], "ANOTHER-1"],
    ["variable symbols", ["order", "variableSymbols"], ["2026000124"]],
    ["variable symbols order", ["order", "variableSymbols"], ["2", "1"]],
  ])("creates a new application when the %s differs", async (_, path, value) => {
    const { partner, token } = await signIn();
    const body = withPath(applicationRequest(), ["order", "variableSymbols"], ["1", "2"]);
    expect((await call("POST", CREATE, { token, body })).status).toBe(201);
    expect((await call("POST", CREATE, { token, body: withPath(body, path, value) })).status).toBe(201);
    expect(await applicationCount(partner.id)).toBe(2);
  });

  it("creates a new application when the total differs", async () => {
    const { partner, token } = await signIn();
    const body = applicationRequest();
    await createApplication(token, body);
    const cheaper = structuredClone(body);
    cheaper.order.items[2]!.totalPrice.amount = 31900;
    cheaper.order.totalPrice.amount = 199900;
    expect((await call("POST", CREATE, { token, body: cheaper })).status).toBe(201);
    expect(await applicationCount(partner.id)).toBe(2);
  });

  it("does not match another partner's application", async () => {
    const first = await signIn();
    const second = await signIn();
    const body = applicationRequest();
    expect((await call("POST", CREATE, { token: first.token, body })).status).toBe(201);
    expect((await call("POST", CREATE, { token: second.token, body })).status).toBe(201);
  });

  it("holds under 10 concurrent identical requests: exactly one application", async () => {
    const { partner, token } = await signIn();
    const body = applicationRequest();
    const responses = await Promise.all(Array.from({ length: 10 }, () => call("POST", CREATE, { token, body })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const ids = new Set(await Promise.all(responses.map(async (r) => (await json<{ id: string }>(r)).id)));
    expect(ids.size).toBe(1);
    expect(await applicationCount(partner.id)).toBe(1);
  });

  it("holds under 10 concurrent identical requests after the window: exactly one new application", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    at(0);
    const { partner, token } = await signIn();
    const body = applicationRequest();
    const first = await json<{ id: string }>(await call("POST", CREATE, { token, body }));
    at(21 * 60_000);
    const responses = await Promise.all(Array.from({ length: 10 }, () => call("POST", CREATE, { token, body })));
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const ids = new Set(await Promise.all(responses.map(async (r) => (await json<{ id: string }>(r)).id)));
    expect(ids.size).toBe(1);
    expect(ids.has(first.id)).toBe(false);
    expect(await applicationCount(partner.id)).toBe(2);
  });
});
