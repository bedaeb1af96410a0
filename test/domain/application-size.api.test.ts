/**
 * The largest application any sequence of requests can build (issue: three ordinary requests made one
 * that no statement could read), built through the API: a creation at every maximum the schemas take,
 * then partial operations, each splitting a line, until the budget refuses them. It stays readable
 * through every surface, and no answer passes the ceiling, a list page of such applications included.
 */
import { describe, expect, it } from "vitest";
import { MAX_ANSWER_BYTES, MAX_APPLICATION_BYTES } from "../../src/domain/application-size";
import { call, json, signIn } from "../support/api";
import { signedInBrowser } from "../support/console";
import { applicationRequest, countRows } from "../support/factories";
import { openGateway, submitGateway } from "../support/gateway";
import { app, expect422, put } from "../support/orders";

const bytes = (text: string) => new TextEncoder().encode(text).length;

/** An item with every text at the longest its schema accepts, of `quantity` units of 1.00. */
function largestItem(i: number, quantity: number) {
  return {
    code: `C${i}-`.padEnd(200, "c"),
    ean: "e".repeat(64),
    name: `N${i}-`.padEnd(255, "n"),
    type: "PHYSICAL",
    variant: "v".repeat(255),
    producer: "p".repeat(255),
    categories: Array.from({ length: 20 }, (_, k) => `${k}`.padEnd(255, "k")),
    productUrl: `https://shop.example.com/${"u".repeat(2048 - 25)}`,
    quantity,
    unitPrice: { amount: 100, currency: "CZK" },
    totalPrice: { amount: 100 * quantity, currency: "CZK" },
    totalVat: { vatRate: 21, amount: 0, currency: "CZK" },
  };
}

/** A creation at every maximum with `count` items of `quantity` units. */
function largestRequest(count: number, quantity = 4) {
  const body = applicationRequest();
  const items = Array.from({ length: count }, (_, i) => largestItem(i, quantity));
  const address = {
    name: "a".repeat(200),
    city: "c".repeat(100),
    country: "CZ",
    streetAddress: "s".repeat(200),
    streetNumber: "1".repeat(100),
    zip: "9".repeat(30),
    addressType: "BILLING",
  };
  return {
    ...body,
    customer: { ...body.customer, fullName: "J".repeat(240), email: `${"j".repeat(64)}@example.com` },
    order: {
      ...body.order,
      number: `${Date.now()}${Math.random()}`.padEnd(100, "o"),
      variableSymbols: Array.from({ length: 10 }, (_, i) => `${i}`.repeat(10)),
      addresses: Array.from({ length: 10 }, () => address),
      totalPrice: { amount: 100 * quantity * count, currency: "CZK" },
      totalVat: [{ vatRate: 21, amount: 0, currency: "CZK" }],
      items,
    },
  };
}

/** The largest application: created with as many of the largest items as fit, approved, then split until refused. */
async function largestApplication(token: string) {
  let count = 100;
  let created: Response;
  // 100 items at every maximum are far past the budget: refused whole, nothing stored.
  for (;;) {
    created = await call("POST", "/financing/v1/applications", { token, body: largestRequest(count) });
    if (created.status !== 422) break;
    const body = await expect422(created, "APPLICATION_SIZE_LIMIT_REACHED");
    expect(body).toMatchObject({ errors: [{ attribute: "order.items" }] });
    count -= 1;
  }
  expect(created.status).toBe(201);
  expect(count).toBeLessThan(100);
  const atCreation = (await json<{ id: string }>(created)).id;
  // Fewer items, to leave room for splits: they fill the budget as far as the creation did.
  count -= 5;
  created = await call("POST", "/financing/v1/applications", { token, body: largestRequest(count) });
  expect(created.status).toBe(201);
  const { id, gatewayRedirectUrl } = await json<{ id: string; gatewayRedirectUrl: string }>(created);
  const decided = await submitGateway(gatewayRedirectUrl, { action: "confirm" });
  expect(decided.status).toBe(303);
  // Every splitting operation, one unit at a time, until the budget refuses; a refusal changes nothing.
  const operations = [
    (i: number) => put(token, `${app(id)}/order/send`, { items: [{ code: largestItem(i, 1).code, quantity: 1 }] }),
    (i: number) => put(token, `${app(id)}/order/cancel`, { items: [{ code: largestItem(i, 1).code, quantity: 1 }] }),
    (i: number) => put(token, `${app(id)}/order/deliver`, { items: [{ code: largestItem(i, 1).code, quantity: 1 }] }),
  ];
  let splits = 0;
  for (const operation of operations) {
    for (let i = 0; ; i = (i + 1) % count) {
      const res = await operation(i);
      if (res.status === 200) {
        splits++;
        continue;
      }
      const before = await call("GET", app(id), { token });
      await expect422(res, "APPLICATION_SIZE_LIMIT_REACHED");
      expect(await (await call("GET", app(id), { token })).text()).toBe(await before.text());
      break;
    }
  }
  return { id, count, splits, gatewayRedirectUrl, ids: [atCreation, id] };
}

describe("the largest application", () => {
  it("is built to the budget and no further, and reads through the API, the list, the gateway and the console", async () => {
    const { partner, token } = await signIn();
    const largest = await largestApplication(token);
    expect(largest.splits).toBeGreaterThan(0);

    const got = await call("GET", app(largest.id), { token });
    expect(got.status).toBe(200);
    const text = await got.text();
    // What it holds, as measured, is within the budget; the answer within the ceiling.
    const stored = await countRows("applications", "id = ? AND content_bytes <= ?", largest.id, MAX_APPLICATION_BYTES);
    expect(stored).toBe(1);
    expect(bytes(text)).toBeGreaterThan(MAX_APPLICATION_BYTES * 0.8);
    expect(bytes(text)).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    const lines = (JSON.parse(text) as { order: { items: unknown[] } }).order.items;
    expect(lines.length).toBe(largest.count + largest.splits);

    const list = await call("GET", "/financing/v1/applications?limit=100", { token });
    expect(list.status).toBe(200);
    expect(bytes(await list.text())).toBeLessThanOrEqual(MAX_ANSWER_BYTES);

    const gateway = await openGateway(largest.gatewayRedirectUrl);
    expect(gateway.status).toBe(200);
    expect(bytes(gateway.html)).toBeLessThanOrEqual(MAX_ANSWER_BYTES);

    const browser = await signedInBrowser(partner);
    const page = await browser.get(`/console/applications/${largest.id}`);
    expect(page.status).toBe(200);
    expect(bytes(page.html)).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    const consoleList = await browser.get("/console/applications");
    expect(consoleList.status).toBe(200);
    expect(consoleList.html).toContain(largest.id);
    expect(bytes(consoleList.html)).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
  }, 120_000);

  it("fills a list page only as far as the ceiling: a page of them holds what fits, and the cursor goes on exactly", async () => {
    const { token } = await signIn();
    const ids: string[] = [];
    for (let n = 0; n < 2; n++) ids.push(...(await largestApplication(token)).ids);
    const small = await call("POST", "/financing/v1/applications", { token, body: applicationRequest() });
    ids.push((await json<{ id: string }>(small)).id);

    const seen: string[] = [];
    let next: string | undefined = "/financing/v1/applications?limit=100";
    while (next) {
      const res = await call("GET", next, { token });
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(bytes(text)).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
      const page = JSON.parse(text) as {
        data: { id: string }[];
        pagingInfo: { itemsPerPage: number; nextPage?: string };
      };
      // A page of one of them: the next would pass the ceiling; the page says how many it gave.
      expect(page.data.length).toBeGreaterThan(0);
      if (page.pagingInfo.nextPage) expect(page.pagingInfo.itemsPerPage).toBe(page.data.length);
      seen.push(...page.data.map((a) => a.id));
      next = page.pagingInfo.nextPage;
    }
    expect(seen).toEqual(ids);
  }, 240_000);
});
