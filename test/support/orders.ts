import { call, json } from "./api";
import { applicationRequest, createApplication, forceState } from "./factories";
import { submitGateway } from "./gateway";

export const app = (id: string) => `/financing/v1/applications/${id}`;

/** The order of a change to one item in CZK: its price and the 21 % VAT it includes. */
export function oneItemOrder(amount: number, vat: number, item = { code: "MON-27", name: "Monitor" }) {
  return {
    totalPrice: { amount, currency: "CZK" },
    totalVat: [{ vatRate: 21, amount: vat, currency: "CZK" }],
    items: [
      {
        ...item,
        quantity: 1,
        totalPrice: { amount, currency: "CZK" },
        totalVat: { vatRate: 21, amount: vat, currency: "CZK" },
      },
    ],
  };
}

export interface OrderView {
  state: string;
  totalPrice: { amount: number; currency: string };
  totalVat: { vatRate: number; amount: number; currency: string }[];
  refundedPrice: { amount: number; currency: string };
  refundablePrice: { amount: number; currency: string };
  items: {
    code: string;
    name: string;
    type: string;
    ean?: string;
    quantity: number;
    state: string;
    totalPrice: { amount: number };
    totalVat: { amount: number };
    unitPrice?: { amount: number };
    sentDate?: string;
    deliveryDate?: string;
    deliveryTrackingNumber?: string;
  }[];
  documents: { id: string; type: string; filename: string; url: string; description?: string }[];
  applicationInfo: { id: string; state: string; stateReason: string };
}

/** An approved application with a single line of `total` (quantity `quantity`). */
export async function approvedWithTotal(token: string, total: number, quantity = 1) {
  const body = applicationRequest();
  body.order.items = [
    {
      code: "TV-55",
      name: "Television",
      type: "PHYSICAL",
      quantity,
      totalPrice: { amount: total, currency: "CZK" },
      totalVat: { vatRate: 21, amount: Math.round(total * 0.1736), currency: "CZK" },
    } as (typeof body.order.items)[number],
  ];
  body.order.totalPrice.amount = total;
  body.order.totalVat = [{ vatRate: 21, amount: Math.round(total * 0.1736), currency: "CZK" }];
  const created = await createApplication(token, body);
  await forceState(created.id, "READY", "READY_TO_SHIP");
  return created.id;
}

/** The factory's three-line application (keyboard ×2, book, shipping), approved. */
export async function approved(token: string) {
  const created = await createApplication(token);
  await forceState(created.id, "READY", "READY_TO_SHIP");
  return created.id;
}

/** An approved application with a single line of `total`, sent: refundable in full. */
export async function shippedWithTotal(token: string, total: number) {
  const id = await approvedWithTotal(token, total);
  const res = await put(token, `${app(id)}/order/send`, {});
  if (res.status !== 200) throw new Error(`send answered ${res.status}: ${await res.text()}`);
  return id;
}

/**
 * The factory's application, approved, with `items` sent (every item when omitted): refunds and
 * returns need goods that went out (CONTRACT 5).
 */
export async function shipped(token: string, items?: { code: string; quantity?: number }[]) {
  const id = await approved(token);
  const res = await put(token, `${app(id)}/order/send`, items ? { items } : {});
  if (res.status !== 200) throw new Error(`send answered ${res.status}: ${await res.text()}`);
  return id;
}

export async function put(token: string, path: string, body?: unknown, headers?: Record<string, string>) {
  return call("PUT", path, { token, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });
}

export async function order(token: string, id: string): Promise<OrderView> {
  const read = await json<{ order: Omit<OrderView, "applicationInfo">; state: string; stateReason: string }>(
    await call("GET", app(id), { token }),
  );
  return { ...read.order, applicationInfo: { id, state: read.state, stateReason: read.stateReason } };
}

export async function expect422(res: Response, code: string) {
  const body = await json<{ error: string; errors: { code: string }[] }>(res);
  if (res.status !== 422 || body.error !== "unprocessable" || body.errors[0]?.code !== code) {
    throw new Error(`expected 422 ${code}, got ${res.status} ${JSON.stringify(body)}`);
  }
  return body;
}

/**
 * The order of the DISCOUNT sequences: a keyboard (1 × 1000, VAT 21 %) and a discount (1 × −200),
 * financed 800, approved through the gateway as a customer would.
 */
export async function discountedAndApproved(token: string) {
  const body = applicationRequest();
  const created = await createApplication(token, {
    ...body,
    order: {
      ...body.order,
      totalPrice: { amount: 800, currency: "CZK" },
      totalVat: [{ vatRate: 21, amount: 139, currency: "CZK" }],
      items: [
        {
          code: "KB-01",
          name: "Keyboard",
          type: "PHYSICAL",
          quantity: 1,
          totalPrice: { amount: 1000, currency: "CZK" },
          totalVat: { vatRate: 21, amount: 174, currency: "CZK" },
        },
        {
          code: "DISC",
          name: "Discount",
          type: "DISCOUNT",
          quantity: 1,
          totalPrice: { amount: -200, currency: "CZK" },
          totalVat: { vatRate: 21, amount: -35, currency: "CZK" },
        },
      ],
    },
  });
  const decided = await submitGateway(created.gatewayRedirectUrl, { action: "confirm" });
  if (decided.status !== 303) throw new Error(`gateway answered ${decided.status}`);
  return created.id;
}
