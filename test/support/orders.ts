import { call, json } from "./api";
import { applicationRequest, createApplication, forceState } from "./factories";

export const app = (id: string) => `/financing/v1/applications/${id}`;

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
