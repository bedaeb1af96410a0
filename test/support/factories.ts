import { env } from "cloudflare:workers";
import { newId } from "../../src/ids";
import { call, json } from "./api";

/** A create request with every field of the spec filled in, consistent in every amount. */
export function applicationRequest(overrides: { orderNumber?: string; email?: string; type?: string } = {}) {
  return {
    type: overrides.type ?? "DEFERRED_PAYMENT",
    agreementTermsAndConditions: true,
    customer: {
      fullName: "Jana Nováková",
      email: overrides.email ?? "jana.novakova@example.com",
      phone: "+420777123456",
      fraudPreventionData: {
        transactionsNumber: 12,
        cashlessTransactionsNumber: 9,
        transactionsSum: { amount: 1250000, currency: "CZK" },
        cashlessTransactionsSum: { amount: 990000, currency: "CZK" },
      },
    },
    order: {
      number: overrides.orderNumber ?? `ORD-${newId()}`,
      reservationDate: "2026-11-22T10:15:00+01:00",
      totalPrice: { amount: 200000, currency: "CZK" },
      totalVat: [
        { vatRate: 21, amount: 31400, currency: "CZK" },
        { vatRate: 12, amount: 1714, currency: "CZK" },
      ],
      items: [
        {
          code: "KB-01",
          ean: "8591234567890",
          name: "Mechanical keyboard",
          type: "PHYSICAL",
          variant: "black",
          producer: "Keys & Co",
          categories: ["computers", "keyboards"],
          quantity: 2,
          unitPrice: { amount: 76000, currency: "CZK" },
          totalPrice: { amount: 152000, currency: "CZK" },
          unitVat: { vatRate: 21, amount: 13190, currency: "CZK" },
          totalVat: { vatRate: 21, amount: 26380, currency: "CZK" },
          productUrl: "https://shop.example.com/kb-01",
        },
        {
          code: "BK-7",
          name: "Guide to typing",
          type: "PHYSICAL",
          quantity: 1,
          totalPrice: { amount: 16000, currency: "CZK" },
          totalVat: { vatRate: 12, amount: 1714, currency: "CZK" },
        },
        {
          code: "SHIP",
          name: "Delivery",
          type: "SHIPPING_FEE",
          quantity: 1,
          totalPrice: { amount: 32000, currency: "CZK" },
          totalVat: { vatRate: 21, amount: 5020, currency: "CZK" },
        },
      ],
      addresses: [
        {
          name: "Jana Nováková",
          city: "Praha",
          country: "CZ",
          streetAddress: "Vinohradská",
          streetNumber: "12",
          zip: "12000",
          addressType: "BILLING",
        },
      ],
      variableSymbols: ["2026000123"],
      deliveryCarrier: { carrierId: "PPL" },
      channel: "ESHOP",
    },
    merchantUrls: {
      approvedRedirect: "https://shop.example.com/financing/approved?order=1",
      rejectedRedirect: "https://shop.example.com/financing/rejected",
      notificationEndpoint: "https://shop.example.com/financing/notifications",
    },
  };
}

export type ApplicationRequest = ReturnType<typeof applicationRequest>;

export interface ApplicationView {
  id: string;
  state: string;
  stateReason: string;
  gatewayRedirectUrl: string;
  order: Record<string, unknown> & { items: Record<string, unknown>[] };
  [key: string]: unknown;
}

export async function createApplication(token: string, body: unknown = applicationRequest()) {
  const res = await call("POST", "/financing/v1/applications", { token, body });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
  return json<ApplicationView>(res);
}

/** Test set-up only: puts an application into a state without going through the gateway. */
export async function forceState(id: string, state: string, stateReason: string, approvedAmount?: number) {
  await env.DB.prepare(
    "UPDATE applications SET state = ?, state_reason = ?, approved_amount = COALESCE(?, total_amount), version = version + 1 WHERE id = ?",
  )
    .bind(state, stateReason, approvedAmount ?? null, id)
    .run();
}

/** Test set-up only: marks lines with the given code as `state`. */
export async function forceLineState(applicationId: string, code: string, state: string) {
  await env.DB.prepare("UPDATE order_lines SET state = ? WHERE application_id = ? AND code = ?")
    .bind(state, applicationId, code)
    .run();
}

export async function countRows(table: string, where = "1 = 1", ...bind: unknown[]): Promise<number> {
  const row = await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`)
    .bind(...bind)
    .first<{ n: number }>();
  return row!.n;
}

export const applicationCount = (partnerId: string) => countRows("applications", "partner_id = ?", partnerId);

export async function eventsOf(applicationId: string) {
  const rows = await env.DB.prepare(
    "SELECT sequence, state, state_reason AS stateReason FROM events WHERE application_id = ? ORDER BY sequence",
  )
    .bind(applicationId)
    .all<{ sequence: number; state: string; stateReason: string }>();
  return rows.results;
}

/** A deep copy with `path` (dot/bracket-free segments) removed or replaced. */
export function withPath(body: unknown, path: (string | number)[], value: unknown | typeof REMOVE): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let target = copy as Record<string | number, unknown>;
  for (const segment of path.slice(0, -1)) target = target[segment] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (value === REMOVE) {
    if (Array.isArray(target)) target.splice(last as number, 1);
    else delete target[last];
  } else target[last] = value;
  return copy;
}
export const REMOVE = Symbol("remove");
