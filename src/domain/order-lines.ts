/**
 * Order lines and the operations on them (CONTRACT 5). Pure: no HTTP, no SQL. Handlers load the lines,
 * call one of these, and write back what changed.
 */
import { isOut, type LineState } from "./application-state";
import { proRata } from "./money";
import { type Problem, problem, type Result, refused } from "./result";

export interface Line {
  id: string;
  /** Display order; a split line keeps its origin's position and sorts after it by id. */
  position: number;
  code: string;
  ean: string | null;
  name: string;
  type: string;
  variant: string | null;
  producer: string | null;
  categories: string[] | null;
  productUrl: string | null;
  quantity: number;
  unitPriceAmount: number | null;
  totalPriceAmount: number;
  unitVatRate: number | null;
  unitVatAmount: number | null;
  totalVatRate: number;
  totalVatAmount: number;
  state: LineState;
  sentDate: string | null;
  deliveryDate: string | null;
  deliveryTrackingNumber: string | null;
}

/** An item of a create or change-order request (validated and consistent). */
export interface OrderItem {
  code: string;
  ean?: string | undefined;
  name: string;
  type: string;
  variant?: string | undefined;
  producer?: string | undefined;
  categories?: string[] | undefined;
  productUrl?: string | undefined;
  quantity: number;
  unitPrice?: { amount: number } | undefined;
  totalPrice: { amount: number };
  unitVat?: { vatRate: number; amount: number } | undefined;
  totalVat: { vatRate: number; amount: number };
}

/** The lines of a new order content, in request order, nothing done to them yet. */
export function newLines(items: readonly OrderItem[], newId: () => string): Line[] {
  return items.map((item, position) => ({
    id: newId(),
    position,
    code: item.code,
    ean: item.ean ?? null,
    name: item.name,
    type: item.type,
    variant: item.variant ?? null,
    producer: item.producer ?? null,
    categories: item.categories ?? null,
    productUrl: item.productUrl ?? null,
    quantity: item.quantity,
    unitPriceAmount: item.unitPrice?.amount ?? null,
    totalPriceAmount: item.totalPrice.amount,
    unitVatRate: item.unitVat?.vatRate ?? null,
    unitVatAmount: item.unitVat?.amount ?? null,
    totalVatRate: item.totalVat.vatRate,
    totalVatAmount: item.totalVat.amount,
    state: "PROCESSING",
    sentDate: null,
    deliveryDate: null,
    deliveryTrackingNumber: null,
  }));
}

/** An entry of a request's `items`: any identifiers plus an optional quantity. */
export interface ItemSelector {
  code?: string | undefined;
  ean?: string | undefined;
  name?: string | undefined;
  type?: string | undefined;
  /** Omitted: the whole remaining quantity of the matching eligible lines. */
  quantity?: number | undefined;
}

/** What an operation does to the units it touches. */
export interface LineUpdate {
  state: LineState;
  sentDate?: string;
  deliveryDate?: string;
  deliveryTrackingNumber?: string;
}

export interface LinesChange<L extends Line = Line> {
  /** The full list after the operation, in display order (position, then id). */
  lines: L[];
  /** Ids of lines created by splits (to insert). */
  created: string[];
  /** Ids of existing lines whose fields changed (to update). */
  updated: string[];
  /** Sum of `totalPriceAmount` of the touched units (after pro-rata splits). */
  touchedAmount: number;
}

/**
 * Applies `update` to the units chosen by `selectors` among the lines for which `eligible` is true, or to
 * every eligible line when `selectors` is undefined (whole order). Rules:
 * - A selector matches a line when every identifier it gives (`code`, `ean`, `name`, `type`) equals the
 *   line's exactly. A selector giving no identifier at all is ITEM_NOT_FOUND.
 * - No eligible line matches → ITEM_NOT_FOUND (attribute `items[i]`).
 * - `quantity` must be an integer ≥ 1 and ≤ the eligible matching units not already taken by an earlier
 *   selector of the same request → INVALID_QUANTITY (attribute `items[i].quantity`).
 * - Units are taken from matching lines in display order. Taking part of a line splits it: the taken
 *   units become a new line (id from `newId`, same identifiers and position, `update` applied), the rest
 *   keeps its state. Prices and VAT split with `proRata` so that both pieces sum exactly to the origin.
 * - Every problem of the request is reported, not only the first. `selectors = []` is an error the
 *   caller handles (amount-only return); here it touches nothing.
 * - When nothing eligible exists for a whole-order request the result touches nothing (the caller
 *   decides whether that is an error).
 */
export function applyToLines<L extends Line>(
  lines: readonly L[],
  selectors: readonly ItemSelector[] | undefined,
  eligible: (line: L) => boolean,
  update: LineUpdate,
  newId: () => string,
): Result<LinesChange<L>> {
  const ordered = sortLines(lines);
  // Units taken per line id; a line touched by several selectors is split once, for their sum.
  const taken = new Map<string, number>();

  if (selectors === undefined) {
    for (const line of ordered) if (eligible(line)) taken.set(line.id, line.quantity);
  } else {
    const problems: Problem[] = [];
    selectors.forEach((selector, i) => {
      problems.push(...take(ordered, selector, i, eligible, taken));
    });
    if (problems.length > 0) return refused(...problems);
  }

  const result: L[] = [];
  const created: string[] = [];
  const updated: string[] = [];
  let touchedAmount = 0;
  for (const line of ordered) {
    const units = taken.get(line.id) ?? 0;
    if (units === 0) {
      result.push(line);
    } else if (units === line.quantity) {
      result.push(withUpdate(line, update));
      updated.push(line.id);
      touchedAmount += line.totalPriceAmount;
    } else {
      const [piece, rest] = split(line, units, newId());
      result.push(rest, withUpdate(piece, update));
      updated.push(line.id);
      created.push(piece.id);
      touchedAmount += piece.totalPriceAmount;
    }
  }
  return { ok: true, value: { lines: sortLines(result), created, updated, touchedAmount } };
}

const IDENTIFIERS = ["code", "ean", "name", "type"] as const;

/** Reserves in `taken` the units `selector` asks for, or reports why it cannot (reserving nothing). */
function take<L extends Line>(
  ordered: readonly L[],
  selector: ItemSelector,
  i: number,
  eligible: (line: L) => boolean,
  taken: Map<string, number>,
): Problem[] {
  const problems: Problem[] = [];
  const { quantity } = selector;
  const quantityValid = quantity === undefined || (Number.isInteger(quantity) && quantity >= 1);
  if (!quantityValid) {
    problems.push(invalidQuantity(i, `Quantity ${quantity} is not an integer of at least 1.`));
  }

  const matching = ordered.filter((line) => eligible(line) && selects(selector, line));
  const free = (line: Line) => line.quantity - (taken.get(line.id) ?? 0);
  const available = matching.reduce((sum, line) => sum + free(line), 0);

  if (matching.length === 0) {
    problems.push(
      problem(
        "ITEM_NOT_FOUND",
        IDENTIFIERS.some((key) => selector[key] !== undefined)
          ? "No item of the order in a state this operation applies to matches every identifier given."
          : "The item gives none of code, ean, name, type.",
        `items[${i}]`,
      ),
    );
  } else if (available === 0 && quantity === undefined) {
    // "The whole remaining quantity" of nothing: earlier entries of the request already took every unit.
    problems.push(
      problem(
        "ITEM_NOT_FOUND",
        "Every matching unit is already taken by an earlier item of this request.",
        `items[${i}]`,
      ),
    );
  } else if (quantityValid && quantity !== undefined && quantity > available) {
    problems.push(invalidQuantity(i, `Quantity ${quantity} exceeds the ${available} units available.`));
  }
  if (problems.length > 0) return problems;

  let wanted = quantity ?? available;
  for (const line of matching) {
    if (wanted === 0) break;
    const units = Math.min(free(line), wanted);
    taken.set(line.id, (taken.get(line.id) ?? 0) + units);
    wanted -= units;
  }
  return [];
}

/** Whether the selector names the line: it gives at least one identifier and every one it gives is equal. */
function selects(selector: ItemSelector, line: Line): boolean {
  const given = IDENTIFIERS.filter((key) => selector[key] !== undefined);
  return given.length > 0 && given.every((key) => line[key] === selector[key]);
}

function invalidQuantity(i: number, message: string): Problem {
  return problem("INVALID_QUANTITY", message, `items[${i}].quantity`);
}

function withUpdate<L extends Line>(line: L, update: LineUpdate): L {
  return {
    ...line,
    state: update.state,
    sentDate: update.sentDate ?? line.sentDate,
    deliveryDate: update.deliveryDate ?? line.deliveryDate,
    deliveryTrackingNumber: update.deliveryTrackingNumber ?? line.deliveryTrackingNumber,
  };
}

/** The taken `units` as a new line `id`, and the rest of the origin; amounts sum exactly to the origin's. */
function split<L extends Line>(line: L, units: number, id: string): [piece: L, rest: L] {
  const price = proRata(line.totalPriceAmount, units, line.quantity);
  const vat = proRata(line.totalVatAmount, units, line.quantity);
  return [
    { ...line, id, quantity: units, totalPriceAmount: price, totalVatAmount: vat },
    {
      ...line,
      quantity: line.quantity - units,
      totalPriceAmount: line.totalPriceAmount - price,
      totalVatAmount: line.totalVatAmount - vat,
    },
  ];
}

/** Whether the line went out to the customer (application-state.ts, `isOut`). */
export const wentOut = (line: Pick<Line, "state">): boolean => isOut(line.state);

/** Sum of `totalPriceAmount` of the lines that are not CANCELLED: the financed total. */
export function financedAmount(lines: readonly Line[]): number {
  return lines.reduce((sum, line) => (line.state === "CANCELLED" ? sum : sum + line.totalPriceAmount), 0);
}

/** The VAT of the lines that are not cancelled, summed per rate, in order of the rates' first appearance. */
export function vatPerRate(lines: readonly Line[]): { vatRate: number; amount: number }[] {
  const perRate = new Map<number, number>();
  for (const line of lines) {
    if (line.state === "CANCELLED") continue;
    perRate.set(line.totalVatRate, (perRate.get(line.totalVatRate) ?? 0) + line.totalVatAmount);
  }
  return [...perRate].map(([vatRate, amount]) => ({ vatRate, amount }));
}

/** Lines in display order: by position, then id. */
export function sortLines<T extends Pick<Line, "position" | "id">>(lines: readonly T[]): T[] {
  // Code-unit comparison, not localeCompare: the order must not depend on the runtime's locale.
  return [...lines].sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

// ---- Discounts ------------------------------------------------------------------------------------

/**
 * A DISCOUNT line (the only kind with a negative price) lowers the price of the whole order, not of one
 * item, so it moves only with the whole order:
 * - it is sent and delivered like any line;
 * - cancel and return refuse to take it on its own (DISCOUNT_NOT_SEPARABLE, see `discountSelections`);
 * - it follows the goods (`settleDiscounts`): cancelled once every other line is cancelled, returned once
 *   every other line is returned or cancelled.
 * Until then the discount stays whole with the goods that remain. So a discount never raises the
 * financed total nor lowers the refunded one; the ledger (src/domain/ledger.ts) refuses whatever would.
 */
export const isDiscount = (line: Pick<Line, "type">) => line.type === "DISCOUNT";

/** Cancel and return act on goods: an item of the request that names only DISCOUNT lines is refused. */
export function discountSelections(lines: readonly Line[], selectors: readonly ItemSelector[] | undefined): Problem[] {
  return (selectors ?? []).flatMap((selector, i) =>
    lines.some((l) => isDiscount(l) && selects(selector, l)) &&
    !lines.some((l) => !isDiscount(l) && selects(selector, l))
      ? [
          problem(
            "DISCOUNT_NOT_SEPARABLE",
            "A DISCOUNT line is cancelled or returned only with the whole order: omit items to act on the whole order.",
            `items[${i}]`,
          ),
        ]
      : [],
  );
}

const done = (state: LineState) => state === "CANCELLED" || state === "RETURNED";

/**
 * Lets the DISCOUNT lines follow the goods after an operation: when every other line is cancelled they
 * are cancelled; when every other line is cancelled or returned they are returned, or cancelled when
 * returning them would leave less financed than `refunded` (the goods that came back were refunded
 * beyond the discounted price: the discount no longer applies, and cancelling it keeps the customer
 * owing nothing). Returned discounts count in `touchedAmount` (they lower an item return's refund).
 */
export function settleDiscounts<L extends Line>(change: LinesChange<L>, refunded: number): LinesChange<L> {
  const goods = change.lines.filter((l) => !isDiscount(l));
  const open = change.lines.filter((l) => isDiscount(l) && !done(l.state));
  if (open.length === 0 || !goods.every((l) => done(l.state))) return change;
  const cancelled = goods.every((l) => l.state === "CANCELLED");
  const discount = open.reduce((sum, l) => sum + l.totalPriceAmount, 0);
  const returned = !cancelled && financedAmount(change.lines) >= refunded;
  const state: LineState = returned ? "RETURNED" : "CANCELLED";
  const following = new Set(open.map((l) => l.id));
  return {
    lines: change.lines.map((l) => (following.has(l.id) ? { ...l, state } : l)),
    created: change.created,
    updated: [...new Set([...change.updated, ...following])],
    touchedAmount: change.touchedAmount + (returned ? discount : 0),
  };
}
