/**
 * `npm run examples:capture` (with `npm start` running): walks the API once as a partner would and
 * writes the real requests and answers to src/routes/examples.json, the examples of the OpenAPI
 * document. Ids and times come from that run; the gateway token is replaced by a placeholder, and
 * test/http/openapi.test.ts checks that every example still validates against its schema.
 */
import { writeFileSync } from "node:fs";
import { DEMO } from "./lib";

const BASE = process.env.BASE ?? "http://127.0.0.1:8787";
const examples: Record<string, unknown> = {};

async function call(
  method: string,
  path: string,
  body?: unknown,
  token?: string,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: "manual",
  });
  const text = await res.text();
  if (res.status >= 300 && res.status !== 303) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const item = (code: string, name: string, amount: number, quantity = 1, type = "PHYSICAL") => ({
  code,
  name,
  type,
  quantity,
  ...(quantity > 1 ? { unitPrice: { amount: amount / quantity, currency: "CZK" } } : {}),
  totalPrice: { amount, currency: "CZK" },
  totalVat: { vatRate: 21, amount: Math.round((amount * 21) / 121), currency: "CZK" },
});

const login = { username: DEMO.username, password: DEMO.password };
examples.loginRequest = login;
const { accessToken } = await call("POST", "/authentication/v1/partner", login);
examples.loginResponse = { accessToken: "kVh2r6q0Zr3Jx1o5l7u9WcFh0Gm8yT4pXzN2bQeRaSd", expiresIn: 7200 };

const items = [
  item("KB-01", "Mechanical keyboard", 152000, 2),
  item("BK-7", "Guide to typing", 16000),
  item("SHIP", "Delivery", 32000, 1, "SHIPPING_FEE"),
];
const total = items.reduce((sum, i) => sum + i.totalPrice.amount, 0);
const create = {
  type: "PAY_IN_THREE",
  agreementTermsAndConditions: true,
  customer: { fullName: "Jana Nováková", email: "jana.novakova@example.com", phone: "+420777123456" },
  order: {
    number: `2026-${Date.now() % 1_000_000}`,
    reservationDate: "2026-11-23T10:15:00+01:00",
    totalPrice: { amount: total, currency: "CZK" },
    totalVat: [{ vatRate: 21, amount: items.reduce((sum, i) => sum + i.totalVat.amount, 0), currency: "CZK" }],
    items,
    addresses: [
      {
        name: "Jana Nováková",
        streetAddress: "Vinohradská",
        streetNumber: "12",
        city: "Praha",
        zip: "12000",
        country: "CZ",
        addressType: "BILLING",
      },
    ],
    variableSymbols: ["2026000123"],
    deliveryCarrier: { carrierId: "PPL" },
    channel: "ESHOP",
  },
  // Loopback while the local consumer runs (nothing may leave this machine); the examples show a shop's URL.
  merchantUrls: {
    approvedRedirect: "http://127.0.0.1:4000/financing/approved",
    rejectedRedirect: "http://127.0.0.1:4000/financing/rejected",
    notificationEndpoint: "http://127.0.0.1:4000/financing/notifications",
  },
};
examples.createApplicationRequest = create;
const created = await call("POST", "/financing/v1/applications", create, accessToken);
const gateway = created.gatewayRedirectUrl as string;
examples.createdApplication = created;
// The form as a browser posts it, with its hidden offer token (a confirm decides only the offer shown).
const offer = /name="offer" value="([^"]*)"/.exec(await (await fetch(gateway)).text())?.[1] ?? "";
await fetch(gateway, { method: "POST", body: new URLSearchParams({ offer, action: "confirm" }), redirect: "manual" });

const app = `/financing/v1/applications/${created.id}`;
examples.extendedApplication = await call("PUT", `${app}/authorization/extend`, undefined, accessToken);
examples.precheckRequest = {
  totalPrice: { amount: 2400000, currency: "CZK" },
  customer: { email: "jana.novakova@example.com" },
};
examples.precheckResult = await call("POST", "/financing/v1/precheck", examples.precheckRequest, accessToken);
examples.advanceTimeRequest = { seconds: 2419200 };
examples.sendRequest = {
  items: [{ code: "KB-01", quantity: 1 }],
  sentDate: "2026-11-23",
  deliveryTrackingNumber: "PPL-48213302",
  reference: "FV-2026-0123-1",
};
examples.sentOrder = await call("PUT", `${app}/order/send`, examples.sendRequest, accessToken);
examples.deliverRequest = { items: [{ code: "KB-01", quantity: 1 }], deliveryDate: "2026-11-25" };
await call("PUT", `${app}/order/deliver`, examples.deliverRequest, accessToken);
examples.cancelItemsRequest = { items: [{ code: "SHIP" }] };
await call("PUT", `${app}/order/cancel`, examples.cancelItemsRequest, accessToken);
await call("PUT", `${app}/order/send`, {}, accessToken);
examples.returnRequest = {
  items: [{ code: "BK-7" }],
  variableSymbol: "2026000123",
  document: { type: "CREDIT_NOTE", file: { filename: "credit-note-123.pdf", content: "JVBERi0xLjQKJcfsj6IK" } },
};
examples.returnedOrder = await call("PUT", `${app}/order/return`, examples.returnRequest, accessToken);
examples.refundRequest = { totalPrice: { amount: 5000, currency: "CZK" }, reason: "goodwill for a late delivery" };
examples.refund = await call("POST", `${app}/refunds`, examples.refundRequest, accessToken);
examples.refundPage = await call("GET", `${app}/refunds?limit=2`, undefined, accessToken);
examples.application = await call("GET", app, undefined, accessToken);
examples.applicationPage = await call(
  "GET",
  "/financing/v1/applications?limit=1&sort=-createdAt",
  undefined,
  accessToken,
);
// The money: the shipments, tracking added after dispatch, the balance, a sandbox payout and its entries.
examples.shipmentPage = await call("GET", `${app}/shipments?limit=2`, undefined, accessToken);
const shipmentPath = `${app}/shipments/${(examples.shipmentPage as { data: { id: string }[] }).data[0]!.id}`;
examples.trackingRequest = {
  number: "PPL-48213302-2",
  carrier: "PPL",
  url: "https://www.ppl.cz/vyhledat-zasilku?shipmentId=PPL-48213302-2",
};
examples.trackedShipment = await call("POST", `${shipmentPath}/tracking`, examples.trackingRequest, accessToken);
examples.shipment = await call("GET", shipmentPath, undefined, accessToken);
examples.balance = await call("GET", "/financing/v1/balance", undefined, accessToken);
examples.paidPayouts = await call("POST", "/financing/v1/sandbox/payouts/close", undefined, accessToken);
const payoutPath = `/financing/v1/payouts/${(examples.paidPayouts as { data: { id: string }[] }).data[0]!.id}`;
examples.payoutPage = await call("GET", "/financing/v1/payouts?limit=1&sort=-createdAt", undefined, accessToken);
examples.payout = await call("GET", payoutPath, undefined, accessToken);
examples.payoutEntryPage = await call("GET", `${payoutPath}/entries?limit=3`, undefined, accessToken);
examples.paymentPage = await call("GET", `${app}/payments`, undefined, accessToken);
examples.notificationPage = await call("GET", `${app}/notifications?limit=2`, undefined, accessToken);
examples.partnerNotificationPage = await call("GET", "/financing/v1/notifications?limit=2", undefined, accessToken);
examples.replayRequest = { status: "FAILED", from: "2026-11-23T08:00:00+01:00", to: "2026-11-23T12:00:00+01:00" };
examples.replayResult = { replayed: 42, more: false };
examples.signingSecret = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwJd6aXJ9vB0Q=",
  previousSecretExpiresAt: "2026-11-24T10:00:00+00:00",
};

// A second application, changed and cancelled.
const second = await call(
  "POST",
  "/financing/v1/applications",
  { ...create, order: { ...create.order, number: `${create.order.number}-B` } },
  accessToken,
);
const change = {
  reason: "the customer swapped the keyboard for a cheaper one",
  order: {
    totalPrice: { amount: 120000, currency: "CZK" },
    totalVat: [{ vatRate: 21, amount: 20826, currency: "CZK" }],
    items: [item("KB-02", "Membrane keyboard", 120000)],
  },
};
examples.changeOrderRequest = change;
examples.changedApplication = await call("PUT", `/financing/v1/applications/${second.id}/order`, change, accessToken);
examples.cancelApplicationRequest = { reason: "APPLICATION_CANCELLED_BY_CUSTOMER", customReason: "bought elsewhere" };
examples.cancelledApplication = await call(
  "PUT",
  `/financing/v1/applications/${second.id}/cancel`,
  examples.cancelApplicationRequest,
  accessToken,
);
examples.health = await call("GET", "/v1/health");

// Gateway tokens are credentials: the examples show where the token goes, with a made-up one.
const redact = (value: unknown): unknown =>
  JSON.parse(
    JSON.stringify(value)
      .replace(
        /(\/gateway\/[0-9A-Z]{26}\/)[0-9a-f]{40}/g,
        (_, path) => `${path}${"0123456789abcdef".repeat(3).slice(0, 40)}`,
      )
      .replaceAll(BASE, "https://api.example.com")
      .replaceAll("http://127.0.0.1:4000", "https://shop.example.com"),
  );
writeFileSync("src/routes/examples.json", `${JSON.stringify(redact(examples), null, 2)}\n`);
console.log(`wrote ${Object.keys(examples).length} examples to src/routes/examples.json`);
