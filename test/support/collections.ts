import { FINANCING_TYPES } from "../../src/domain/financing-terms";
import { newId } from "../../src/ids";
import { call, json } from "./api";
import { dbOf } from "./shards";

/** What a seeded application holds, in the partner's terms, to compute expectations in JS. */
export interface Seeded {
  id: string;
  state: string;
  stateReason: string;
  type: string;
  orderNumber: string;
  /** As sent by the customer; the column keeps it lowercased. */
  email: string;
  variableSymbols: string[];
  totalPrice: number;
  createdAt: number;
  updatedAt: number;
}

const PAIRS: [string, string][] = [
  ["PROCESSING", "PROCESSING_REDIRECT_NEEDED"],
  ["READY", "READY_TO_SHIP"],
  ["READY", "READY_SHIPPED"],
  ["READY", "READY_DELIVERED"],
  ["REJECTED", "REJECTED"],
  ["CANCELLED", "CANCELLED_NOT_PAID"],
  ["CANCELLED", "CANCELLED_RETURNED"],
];
const TOTALS = [100, 2500, 9900, 10000, 10001, 49900, 125900, 200000, 999999];
const SYMBOLS = ["1", "12", "123", "2026", "77777", "9999999999"];
/** Order numbers that need encoding inside a filter value. */
export const AWKWARD_ORDER_NUMBERS = ["A,B;C|D", "50% off", "x+y z"];
export const BASE = Date.UTC(2026, 10, 22, 10, 0, 0);

/** Deterministic, so that a failure reproduces (mulberry32). */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` applications varied on every sortable and filterable attribute, with deliberate ties
 * (few distinct totals, order numbers and instants, several instants within one second), written
 * straight into D1 with one line each: faster than the API by far, and free to choose timestamps.
 */
export function generate(count: number, seed: number): Seeded[] {
  const next = random(seed);
  const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const [state, stateReason] = pick(PAIRS);
    const createdAt = BASE + Math.floor(next() * 40) * 60_000 + pick([0, 0, 0, 300, 999]);
    const symbols = SYMBOLS.filter(() => next() < 0.25);
    return {
      // Ids from random instants: id order must not coincide with createdAt order.
      id: newId(BASE + Math.floor(next() * 10_000_000)),
      state,
      stateReason,
      type: pick(FINANCING_TYPES),
      orderNumber: AWKWARD_ORDER_NUMBERS[i] ?? `ORD-${String(Math.floor(next() * 150)).padStart(4, "0")}`,
      email: `Customer${Math.floor(next() * 25)}@Example.com`,
      variableSymbols: symbols,
      totalPrice: pick(TOTALS),
      createdAt,
      updatedAt: createdAt + pick([0, 0, 500, 60_000, 3_600_000]),
    };
  });
}

export async function insert(partnerId: string, seeded: readonly Seeded[]): Promise<void> {
  const db = await dbOf(partnerId);
  const application = db.prepare(
    `INSERT INTO applications (id, partner_id, type, state, state_reason, agreement_terms_and_conditions, customer,
       order_details, merchant_urls, order_number, customer_email, variable_symbols, currency, total_amount,
       approved_amount, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, 'CZK', ?, ?, ?, ?)`,
  );
  const line = db.prepare(
    `INSERT INTO order_lines (id, application_id, position, code, name, type, quantity, total_price_amount,
       total_vat_rate, total_vat_amount, state, created_at, updated_at)
     VALUES (?, ?, 0, 'SKU-1', 'Bicycle', 'PHYSICAL', 1, ?, 21, ?, 'PROCESSING', ?, ?)`,
  );
  const statements = seeded.flatMap((a) => [
    application.bind(
      a.id,
      partnerId,
      a.type,
      a.state,
      a.stateReason,
      JSON.stringify({ fullName: "Jana Nováková", email: a.email, phone: "+420777123456" }),
      JSON.stringify({ number: a.orderNumber, variableSymbols: a.variableSymbols }),
      JSON.stringify({
        approvedRedirect: "https://shop.example.com/ok",
        rejectedRedirect: "https://shop.example.com/ko",
        notificationEndpoint: "https://shop.example.com/notify",
      }),
      a.orderNumber,
      a.email.toLowerCase(),
      a.variableSymbols.join(","),
      a.totalPrice,
      a.state === "READY" ? a.totalPrice : null,
      a.createdAt,
      a.updatedAt,
    ),
    line.bind(newId(a.createdAt), a.id, a.totalPrice, Math.round((a.totalPrice * 21) / 121), a.createdAt, a.updatedAt),
  ]);
  for (let i = 0; i < statements.length; i += 200) await db.batch(statements.slice(i, i + 200));
}

// ---- Reading the list ------------------------------------------------------------------------

export const LIST = "/financing/v1/applications";

export interface ListItem {
  id: string;
  state: string;
  createdAt: string;
  [key: string]: unknown;
}

export interface ListBody {
  data: ListItem[];
  pagingInfo: { itemsPerPage: number; nextPage?: string; prevPage?: string };
}

export async function list(token: string, pathAndQuery: string): Promise<ListBody> {
  const res = await call("GET", pathAndQuery, { token });
  if (res.status !== 200) throw new Error(`GET ${pathAndQuery}: ${res.status} ${await res.text()}`);
  return json<ListBody>(res);
}

/** Every id the list answers for `query`, following nextPage. */
export async function collect(token: string, query: string): Promise<string[]> {
  const ids: string[] = [];
  let next: string | undefined = `${LIST}?${query}`;
  while (next) {
    const page: ListBody = await list(token, next);
    ids.push(...page.data.map((a) => a.id));
    next = page.pagingInfo.nextPage;
  }
  return ids;
}

export const ids = (seeded: readonly Seeded[]) => seeded.map((a) => a.id);

export const byId = (a: Seeded, b: Seeded) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The value a sort attribute orders by, as stored. */
export function sortValue(a: Seeded, name: string): string | number {
  switch (name) {
    case "totalPrice":
      return a.totalPrice;
    case "createdAt":
      return a.createdAt;
    case "updatedAt":
      return a.updatedAt;
    default:
      return a[name as "state" | "type" | "orderNumber" | "id"];
  }
}

/** The spec's order computed in JS: the sort keys, then the id in the direction of the last key. */
export function expectedOrder(seeded: readonly Seeded[], sort: string): Seeded[] {
  const keys = sort
    ? sort.split(",").map((k) => ({ name: k.replace(/^-/, ""), sign: k.startsWith("-") ? -1 : 1 }))
    : [];
  if (!keys.some((k) => k.name === "id")) keys.push({ name: "id", sign: keys.at(-1)?.sign ?? 1 });
  return [...seeded].sort((a, b) => {
    for (const { name, sign } of keys) {
      const x = sortValue(a, name);
      const y = sortValue(b, name);
      if (x !== y) return (x < y ? -1 : 1) * sign;
    }
    return 0;
  });
}
