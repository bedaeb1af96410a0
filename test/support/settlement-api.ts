/** The money side of the API in runtime tests: shipments, payouts and their entries (CONTRACT 6b). */
import { call, json } from "./api";
import { app } from "./orders";

export interface ShipmentView {
  id: string;
  reference?: string;
  items: { code: string; quantity: number; totalPrice: { amount: number; currency: string } }[];
  totalPrice: { amount: number; currency: string };
  sentDate: string;
  deliveryCarrier?: { carrierId: string };
  tracking: { number: string; carrier?: string; url?: string; addedAt: string }[];
  createdAt: string;
}

export interface PayoutView {
  id: string;
  reference: string;
  currency: string;
  status: string;
  totals: { sales: number; refunds: number; fees: number; feeVat: number; net: number };
  entries: number;
  periodEnd: string;
  createdAt: string;
  paidAt?: string;
}

export interface EntryView {
  id: string;
  type: string;
  amount: number;
  applicationId: string;
  shipmentId?: string;
  shipmentReference?: string;
  refundId?: string;
  payoutId?: string;
}

interface Page<T> {
  data: T[];
  pagingInfo: { itemsPerPage: number; nextPage?: string };
}

/** Every item of a list, page after page. */
export async function everything<T>(token: string, path: string): Promise<T[]> {
  const items: T[] = [];
  for (let next: string | undefined = path; next; ) {
    const res = await call("GET", next, { token });
    if (res.status !== 200) throw new Error(`${next} answered ${res.status}: ${await res.text()}`);
    const page = await json<Page<T>>(res);
    items.push(...page.data);
    next = page.pagingInfo.nextPage;
  }
  return items;
}

export const shipmentsOf = (token: string, id: string) => everything<ShipmentView>(token, `${app(id)}/shipments`);

/** The sandbox's close: the payouts it closed and paid. */
export async function closeNow(token: string): Promise<PayoutView[]> {
  const res = await call("POST", "/financing/v1/sandbox/payouts/close", { token });
  if (res.status !== 200) throw new Error(`close answered ${res.status}: ${await res.text()}`);
  return (await json<{ data: PayoutView[] }>(res)).data;
}

export const entriesOf = (token: string, payoutId: string) =>
  everything<EntryView>(token, `/financing/v1/payouts/${payoutId}/entries?limit=100`);
