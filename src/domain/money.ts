/**
 * Money rules on integer minor units. Pure: no HTTP, no SQL.
 */
import type { InvalidCode, Problem } from "./result";

export interface MoneyInput {
  amount: number;
  currency: string;
}

export interface VatInput {
  vatRate: number;
  amount: number;
  currency: string;
}

export interface ItemMoneyInput {
  type: string;
  quantity: number;
  unitPrice?: MoneyInput | undefined;
  totalPrice: MoneyInput;
  unitVat?: VatInput | undefined;
  totalVat: VatInput;
}

export interface OrderMoneyInput {
  totalPrice: MoneyInput;
  totalVat: VatInput[];
  items: ItemMoneyInput[];
}

/**
 * The consistency rules of CONTRACT 4, every violation reported (never only the first), attributes
 * prefixed by `prefix` (e.g. "order"):
 * - CURRENCY_MISMATCH: every currency (order total, order VAT, item prices, item VAT) equals
 *   `order.totalPrice.currency`; attribute is the offending `...currency`.
 * - TOTAL_PRICE_MISMATCH: `totalPrice.amount` equals the sum of the items' `totalPrice.amount`;
 *   attribute `order.totalPrice.amount`.
 * - UNIT_PRICE_MISMATCH: where `unitPrice` is given, item `totalPrice.amount = unitPrice.amount × quantity`;
 *   attribute `order.items[i].totalPrice.amount`.
 * - VAT_MISMATCH: `order.totalVat` equals the items' `totalVat` summed per `vatRate` (same set of rates,
 *   same amounts, each rate at most once in `order.totalVat`); attribute `order.totalVat`.
 * - NEGATIVE_AMOUNT: only items of type DISCOUNT may have a negative `totalPrice.amount` (and a
 *   DISCOUNT may not be positive); attribute `order.items[i].totalPrice.amount`.
 * - NON_POSITIVE_TOTAL: the order total is > 0; attribute `order.totalPrice.amount`.
 */
/** The codes `orderConsistencyProblems` reports: what an order's amounts can get wrong (400). */
export const ORDER_CONSISTENCY_CODES = [
  "CURRENCY_MISMATCH",
  "TOTAL_PRICE_MISMATCH",
  "UNIT_PRICE_MISMATCH",
  "VAT_MISMATCH",
  "NEGATIVE_AMOUNT",
  "NON_POSITIVE_TOTAL",
] as const satisfies readonly InvalidCode[];

/**
 * What a total to finance must be (NON_POSITIVE_TOTAL): more than zero. One rule for a new order and
 * for the precheck's total, so that precheck never offers what create refuses.
 */
export function totalProblems(totalPrice: MoneyInput, attribute: string): Problem[] {
  return totalPrice.amount > 0
    ? []
    : [{ code: "NON_POSITIVE_TOTAL", message: "The order total must be positive.", attribute: `${attribute}.amount` }];
}

export function orderConsistencyProblems(order: OrderMoneyInput, prefix = "order"): Problem[] {
  const problems: Problem[] = [];
  const currency = order.totalPrice.currency;

  const checkCurrency = (money: { currency: string } | undefined, attribute: string) => {
    if (money !== undefined && money.currency !== currency) {
      problems.push({
        code: "CURRENCY_MISMATCH",
        message: `Currency ${money.currency} differs from the order currency ${currency}.`,
        attribute: `${attribute}.currency`,
      });
    }
  };
  for (const [j, vat] of order.totalVat.entries()) checkCurrency(vat, `${prefix}.totalVat[${j}]`);
  order.items.forEach((item, i) => {
    const at = `${prefix}.items[${i}]`;
    checkCurrency(item.unitPrice, `${at}.unitPrice`);
    checkCurrency(item.totalPrice, `${at}.totalPrice`);
    checkCurrency(item.unitVat, `${at}.unitVat`);
    checkCurrency(item.totalVat, `${at}.totalVat`);
  });

  const itemsTotal = order.items.reduce((sum, item) => sum + item.totalPrice.amount, 0);
  if (order.totalPrice.amount !== itemsTotal) {
    problems.push({
      code: "TOTAL_PRICE_MISMATCH",
      message: `Order total ${order.totalPrice.amount} differs from the sum of the items ${itemsTotal}.`,
      attribute: `${prefix}.totalPrice.amount`,
    });
  }
  problems.push(...totalProblems(order.totalPrice, `${prefix}.totalPrice`));

  order.items.forEach((item, i) => {
    const attribute = `${prefix}.items[${i}].totalPrice.amount`;
    if (item.unitPrice !== undefined && item.totalPrice.amount !== item.unitPrice.amount * item.quantity) {
      problems.push({
        code: "UNIT_PRICE_MISMATCH",
        message: `Item total ${item.totalPrice.amount} differs from unit price ${item.unitPrice.amount} × quantity ${item.quantity}.`,
        attribute,
      });
    }
    const discount = item.type === "DISCOUNT";
    if (discount ? item.totalPrice.amount > 0 : item.totalPrice.amount < 0) {
      problems.push({
        code: "NEGATIVE_AMOUNT",
        message: discount ? "A DISCOUNT item may not be positive." : "Only DISCOUNT items may be negative.",
        attribute,
      });
    }
  });

  if (!vatMatches(order)) {
    problems.push({
      code: "VAT_MISMATCH",
      message: "Order VAT differs from the items' VAT summed per rate.",
      attribute: `${prefix}.totalVat`,
    });
  }
  return problems;
}

function vatMatches(order: OrderMoneyInput): boolean {
  const fromItems = new Map<number, number>();
  for (const item of order.items) {
    const { vatRate, amount } = item.totalVat;
    fromItems.set(vatRate, (fromItems.get(vatRate) ?? 0) + amount);
  }
  const declared = new Map<number, number>();
  for (const vat of order.totalVat) {
    if (declared.has(vat.vatRate)) return false;
    declared.set(vat.vatRate, vat.amount);
  }
  if (declared.size !== fromItems.size) return false;
  for (const [rate, amount] of fromItems) {
    if (declared.get(rate) !== amount) return false;
  }
  return true;
}

/**
 * Splits `total` (possibly negative) for `part` of `whole` units so that the two pieces sum exactly to
 * `total`: returns the share of `part` units, rounded toward zero. `0 <= part <= whole`, `whole >= 1`.
 */
export function proRata(total: number, part: number, whole: number): number {
  // total × part can pass 2^53 for large amounts; BigInt keeps it exact and its division truncates toward zero.
  if (Number.isSafeInteger(total) && Number.isSafeInteger(part) && Number.isSafeInteger(whole)) {
    return Number((BigInt(total) * BigInt(part)) / BigInt(whole));
  }
  return Math.trunc((total * part) / whole) + 0; // + 0 turns -0 into 0
}

/**
 * Money as people read it: the pages (the gateway's, the console's) and the refusals' messages.
 *
 * One formatter per currency, built once (building one costs far more than formatting). Only the
 * currencies we finance reach a page, but the cache does not rely on that: past 32 it drops the oldest.
 */
const formatters = new Map<string, Intl.NumberFormat>();
const MAX_FORMATTERS = 32;

/**
 * Integer minor units → a display amount with its currency, always two decimals (CONTRACT 1 keeps
 * money in minor units; a page is read by people, not parsed by a program).
 */
export function formatMoney(amount: number, currency: string): string {
  let formatter = formatters.get(currency);
  if (!formatter) {
    formatter = new Intl.NumberFormat("en-GB", {
      style: "currency",
      currency,
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.delete(formatters.keys().next().value!);
    formatters.set(currency, formatter);
  }
  // amount / 100 is the double nearest the exact decimal, so rounding to two places prints it exactly.
  return formatter.format(amount / 100);
}
