/**
 * Order lines and the operations on them (CONTRACT 5). Pure: no HTTP, no SQL. Handlers load the lines,
 * call one of these, and write back what changed.
 */
import type { LineState } from "./application-state";
import { type Problem, proRata } from "./money";

export interface Line {
  id: string;
  /** Display order; a split line keeps its origin's position and sorts after it by id. */
  position: number;
  code: string;
  ean: string | null;
  name: string;
  type: string;
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

export interface LinesChange {
  /** The full list after the operation, in display order (position, then id). */
  lines: Line[];
  /** Ids of lines created by splits (to insert). */
  created: string[];
  /** Ids of existing lines whose fields changed (to update). */
  updated: string[];
  /** Sum of `totalPriceAmount` of the touched units (after pro-rata splits). */
  touchedAmount: number;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

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
export function applyToLines(
  lines: readonly Line[],
  selectors: readonly ItemSelector[] | undefined,
  eligible: (line: Line) => boolean,
  update: LineUpdate,
  newId: () => string,
): Outcome<LinesChange> {
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
    if (problems.length > 0) return { ok: false, problems };
  }

  const result: Line[] = [];
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
function take(
  ordered: readonly Line[],
  selector: ItemSelector,
  i: number,
  eligible: (line: Line) => boolean,
  taken: Map<string, number>,
): Problem[] {
  const problems: Problem[] = [];
  const { quantity } = selector;
  const quantityValid = quantity === undefined || (Number.isInteger(quantity) && quantity >= 1);
  if (!quantityValid) {
    problems.push(invalidQuantity(i, `Quantity ${quantity} is not an integer of at least 1.`));
  }

  const given = IDENTIFIERS.filter((key) => selector[key] !== undefined);
  const matching =
    given.length === 0
      ? []
      : ordered.filter((line) => eligible(line) && given.every((key) => line[key] === selector[key]));
  const free = (line: Line) => line.quantity - (taken.get(line.id) ?? 0);
  const available = matching.reduce((sum, line) => sum + free(line), 0);

  if (matching.length === 0) {
    problems.push({
      code: "ITEM_NOT_FOUND",
      message:
        given.length === 0
          ? "The item gives none of code, ean, name, type."
          : "No item of the order in a state this operation applies to matches every identifier given.",
      attribute: `items[${i}]`,
    });
  } else if (available === 0 && quantity === undefined) {
    // "The whole remaining quantity" of nothing: earlier entries of the request already took every unit.
    problems.push({
      code: "ITEM_NOT_FOUND",
      message: "Every matching unit is already taken by an earlier item of this request.",
      attribute: `items[${i}]`,
    });
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

function invalidQuantity(i: number, message: string): Problem {
  return { code: "INVALID_QUANTITY", message, attribute: `items[${i}].quantity` };
}

function withUpdate(line: Line, update: LineUpdate): Line {
  return {
    ...line,
    state: update.state,
    sentDate: update.sentDate ?? line.sentDate,
    deliveryDate: update.deliveryDate ?? line.deliveryDate,
    deliveryTrackingNumber: update.deliveryTrackingNumber ?? line.deliveryTrackingNumber,
  };
}

/** The taken `units` as a new line `id`, and the rest of the origin; amounts sum exactly to the origin's. */
function split(line: Line, units: number, id: string): [piece: Line, rest: Line] {
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

/** Sum of `totalPriceAmount` of the lines that are not CANCELLED: the financed total. */
export function financedAmount(lines: readonly Line[]): number {
  return lines.reduce((sum, line) => (line.state === "CANCELLED" ? sum : sum + line.totalPriceAmount), 0);
}

/** Lines in display order: by position, then id. */
export function sortLines<T extends Pick<Line, "position" | "id">>(lines: readonly T[]): T[] {
  // Code-unit comparison, not localeCompare: the order must not depend on the runtime's locale.
  return [...lines].sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
