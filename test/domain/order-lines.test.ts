import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LINE_STATES, type LineState } from "../../src/domain/application-state";
import {
  applyToLines,
  financedAmount,
  type ItemSelector,
  type Line,
  type LinesChange,
  type LineUpdate,
  sortLines,
  vatPerRate,
} from "../../src/domain/order-lines";

function line(fields: Partial<Line> & Pick<Line, "id">): Line {
  return {
    position: 1,
    code: "SKU",
    ean: null,
    name: "Item",
    type: "PHYSICAL",
    variant: null,
    producer: null,
    categories: null,
    productUrl: null,
    quantity: 1,
    unitPriceAmount: null,
    totalPriceAmount: 100,
    unitVatRate: null,
    unitVatAmount: null,
    totalVatRate: 21,
    totalVatAmount: 21,
    state: "PROCESSING",
    sentDate: null,
    deliveryDate: null,
    deliveryTrackingNumber: null,
    ...fields,
  };
}

const shirt = line({
  id: "a1",
  position: 1,
  code: "SKU-1",
  ean: "8590000000011",
  name: "Shirt",
  quantity: 3,
  unitPriceAmount: 350,
  totalPriceAmount: 1050,
  unitVatRate: 21,
  unitVatAmount: 74,
  totalVatAmount: 221,
});
const hat = line({
  id: "b1",
  position: 2,
  code: "SKU-2",
  name: "Hat",
  quantity: 2,
  totalPriceAmount: 1000,
  totalVatAmount: 210,
});
const shipping = line({
  id: "c1",
  position: 3,
  code: "SHIP",
  name: "Shipping",
  type: "SHIPPING_FEE",
  totalPriceAmount: 100,
  totalVatRate: 10,
  totalVatAmount: 10,
});
const discount = line({
  id: "d1",
  position: 4,
  code: "DISC",
  name: "Discount",
  type: "DISCOUNT",
  quantity: 3,
  totalPriceAmount: -100,
  totalVatAmount: -21,
});
const cancelledSock = line({ id: "e1", position: 5, code: "SKU-3", name: "Sock", state: "CANCELLED" });
const ORDER = [discount, cancelledSock, hat, shipping, shirt]; // deliberately not in display order

const unsent = (l: Line) => l.state === "PROCESSING";
const SEND: LineUpdate = { state: "SENT", sentDate: "2025-03-01", deliveryTrackingNumber: "TRK-1" };

function idsFrom(prefix: string) {
  let n = 0;
  return () => `${prefix}${++n}`;
}

function send(selectors: ItemSelector[] | undefined, lines: readonly Line[] = ORDER) {
  return applyToLines(lines, selectors, unsent, SEND, idsFrom("n"));
}

function change(selectors: ItemSelector[] | undefined, lines: readonly Line[] = ORDER): LinesChange {
  const outcome = send(selectors, lines);
  if (!outcome.ok) throw new Error(`expected success, got ${JSON.stringify(outcome.problems)}`);
  return outcome.value;
}

function problems(selectors: ItemSelector[], lines: readonly Line[] = ORDER) {
  const outcome = send(selectors, lines);
  if (outcome.ok) throw new Error("expected problems");
  return outcome.problems.map(({ code, attribute }) => ({ code, attribute }));
}

const sent = (l: Line): Line => ({ ...l, state: "SENT", sentDate: "2025-03-01", deliveryTrackingNumber: "TRK-1" });

describe("applyToLines", () => {
  it("the whole order sends every eligible line and skips cancelled ones", () => {
    expect(change(undefined)).toEqual({
      lines: [sent(shirt), sent(hat), sent(shipping), sent(discount), cancelledSock],
      created: [],
      updated: ["a1", "b1", "c1", "d1"],
      touchedAmount: 1050 + 1000 + 100 - 100,
    });
  });

  it("the whole order with nothing eligible touches nothing", () => {
    const allSent = ORDER.map((l) => (l.state === "CANCELLED" ? l : sent(l)));
    expect(change(undefined, allSent)).toEqual({
      lines: sortLines(allSent),
      created: [],
      updated: [],
      touchedAmount: 0,
    });
  });

  it("an empty list of items touches nothing", () => {
    expect(change([])).toEqual({ lines: sortLines(ORDER), created: [], updated: [], touchedAmount: 0 });
  });

  it.each<[string, ItemSelector, string[]]>([
    ["code", { code: "SKU-2" }, ["b1"]],
    ["ean", { ean: "8590000000011" }, ["a1"]],
    ["name", { name: "Shipping" }, ["c1"]],
    ["type", { type: "PHYSICAL" }, ["a1", "b1"]],
    ["all four identifiers", { code: "SKU-1", ean: "8590000000011", name: "Shirt", type: "PHYSICAL" }, ["a1"]],
  ])("an item selected by %s touches the whole of the matching lines", (_by, selector, ids) => {
    const result = change([selector]);
    expect(result.updated).toEqual(ids);
    expect(result.created).toEqual([]);
    for (const l of result.lines)
      expect(l.state).toBe(ids.includes(l.id) ? "SENT" : ORDER.find((o) => o.id === l.id)?.state);
  });

  it("several identifiers where one does not match the line is ITEM_NOT_FOUND", () => {
    expect(problems([{ code: "SKU-1", name: "Hat" }])).toEqual([{ code: "ITEM_NOT_FOUND", attribute: "items[0]" }]);
  });

  it("identifiers are compared exactly, case included", () => {
    expect(problems([{ code: "sku-1" }])).toEqual([{ code: "ITEM_NOT_FOUND", attribute: "items[0]" }]);
  });

  it("an item giving no identifier is ITEM_NOT_FOUND", () => {
    expect(problems([{ quantity: 1 }])).toEqual([{ code: "ITEM_NOT_FOUND", attribute: "items[0]" }]);
  });

  it("an ean selector never matches a line without ean", () => {
    expect(problems([{ code: "SKU-2", ean: "" }])).toEqual([{ code: "ITEM_NOT_FOUND", attribute: "items[0]" }]);
  });

  it("a partial quantity splits the line: new id, same position, exact prices, unit price kept", () => {
    const result = change([{ code: "SKU-1", quantity: 1 }]);
    expect(result.created).toEqual(["n1"]);
    expect(result.updated).toEqual(["a1"]);
    expect(result.touchedAmount).toBe(350);
    expect(result.lines.slice(0, 2)).toEqual([
      { ...shirt, quantity: 2, totalPriceAmount: 700, totalVatAmount: 148 },
      { ...sent(shirt), id: "n1", quantity: 1, totalPriceAmount: 350, totalVatAmount: 73 },
    ]);
    expect(result.lines.slice(2)).toEqual([hat, shipping, discount, cancelledSock]);
  });

  it("a split of a negative line rounds toward zero and the rest keeps the remainder", () => {
    const result = change([{ type: "DISCOUNT", quantity: 1 }]);
    const [rest, piece] = result.lines.filter((l) => l.code === "DISC");
    expect(rest).toEqual({ ...discount, quantity: 2, totalPriceAmount: -67, totalVatAmount: -14 });
    expect(piece).toEqual({ ...sent(discount), id: "n1", quantity: 1, totalPriceAmount: -33, totalVatAmount: -7 });
    expect(result.touchedAmount).toBe(-33);
  });

  it.each<[string, number]>([
    ["over the available units", 4],
    ["zero", 0],
    ["negative", -1],
    ["not an integer", 1.5],
    ["not a number", Number.NaN],
  ])("a quantity %s is INVALID_QUANTITY", (_what, quantity) => {
    expect(problems([{ code: "SKU-1", quantity }])).toEqual([
      { code: "INVALID_QUANTITY", attribute: "items[0].quantity" },
    ]);
  });

  it("a quantity equal to every unit touches the whole line without a split", () => {
    const result = change([{ code: "SKU-1", quantity: 3 }]);
    expect(result).toMatchObject({ created: [], updated: ["a1"], touchedAmount: 1050 });
  });

  it("two items taking parts of the same line that add up to all of it touch it whole", () => {
    const result = change([
      { code: "SKU-1", quantity: 1 },
      { name: "Shirt", quantity: 2 },
    ]);
    expect(result).toMatchObject({ created: [], updated: ["a1"], touchedAmount: 1050 });
    expect(result.lines[0]).toEqual(sent(shirt));
  });

  it("two items taking parts of the same line split it once for their sum", () => {
    const result = change([
      { code: "SKU-1", quantity: 1 },
      { name: "Shirt", quantity: 1 },
    ]);
    expect(result.created).toEqual(["n1"]);
    expect(
      result.lines.filter((l) => l.code === "SKU-1").map((l) => [l.id, l.state, l.quantity, l.totalPriceAmount]),
    ).toEqual([
      ["a1", "PROCESSING", 1, 350],
      ["n1", "SENT", 2, 700],
    ]);
  });

  it("a second item cannot take units an earlier one already took", () => {
    expect(
      problems([
        { code: "SKU-1", quantity: 2 },
        { name: "Shirt", quantity: 2 },
      ]),
    ).toEqual([{ code: "INVALID_QUANTITY", attribute: "items[1].quantity" }]);
  });

  it("a second item without quantity after an earlier one took everything is ITEM_NOT_FOUND", () => {
    expect(problems([{ code: "SKU-1" }, { name: "Shirt" }])).toEqual([
      { code: "ITEM_NOT_FOUND", attribute: "items[1]" },
    ]);
  });

  it("a second item without quantity takes what an earlier one left", () => {
    const result = change([{ code: "SKU-1", quantity: 1 }, { name: "Shirt" }]);
    expect(result).toMatchObject({ created: [], updated: ["a1"], touchedAmount: 1050 });
  });

  it("ineligible lines are skipped: a cancelled line cannot be selected", () => {
    expect(problems([{ code: "SKU-3" }])).toEqual([{ code: "ITEM_NOT_FOUND", attribute: "items[0]" }]);
  });

  it("units are counted and taken only from eligible lines, in display order", () => {
    const lines = [
      line({ id: "x3", position: 3, code: "P", quantity: 2, totalPriceAmount: 200 }),
      line({ id: "x1", position: 1, code: "P", quantity: 5, totalPriceAmount: 500, state: "SENT" }),
      line({ id: "x2", position: 2, code: "P", quantity: 2, totalPriceAmount: 200 }),
    ];
    expect(problems([{ code: "P", quantity: 5 }], lines)).toEqual([
      { code: "INVALID_QUANTITY", attribute: "items[0].quantity" },
    ]);
    const result = change([{ code: "P", quantity: 3 }], lines);
    expect(result.lines.map((l) => [l.id, l.position, l.state, l.quantity])).toEqual([
      ["x1", 1, "SENT", 5],
      ["x2", 2, "SENT", 2],
      ["n1", 3, "SENT", 1],
      ["x3", 3, "PROCESSING", 1],
    ]);
    expect(result).toMatchObject({ created: ["n1"], updated: ["x2", "x3"], touchedAmount: 300 });
  });

  it("every problem of the request is reported, in item order", () => {
    expect(
      problems([
        { code: "NOPE" },
        { code: "SKU-1", quantity: 1 },
        { name: "Hat", quantity: 3 },
        { type: "SHIPPING_FEE", quantity: 0 },
        {},
      ]),
    ).toEqual([
      { code: "ITEM_NOT_FOUND", attribute: "items[0]" },
      { code: "INVALID_QUANTITY", attribute: "items[2].quantity" },
      { code: "INVALID_QUANTITY", attribute: "items[3].quantity" },
      { code: "ITEM_NOT_FOUND", attribute: "items[4]" },
    ]);
  });

  it("a bad quantity on an unknown item reports both problems", () => {
    expect(problems([{ code: "NOPE", quantity: 0 }])).toEqual([
      { code: "INVALID_QUANTITY", attribute: "items[0].quantity" },
      { code: "ITEM_NOT_FOUND", attribute: "items[0]" },
    ]);
  });

  it("the update keeps dates and tracking it does not set", () => {
    const wasSent = sent(shirt);
    const outcome = applyToLines(
      [wasSent],
      [{ code: "SKU-1", quantity: 2 }],
      (l) => l.state === "SENT",
      { state: "DELIVERED", deliveryDate: "2025-03-04" },
      () => "z1",
    );
    expect(outcome.ok && outcome.value.lines).toEqual([
      { ...wasSent, quantity: 1, totalPriceAmount: 350, totalVatAmount: 74 },
      {
        ...wasSent,
        id: "z1",
        quantity: 2,
        totalPriceAmount: 700,
        totalVatAmount: 147,
        state: "DELIVERED",
        deliveryDate: "2025-03-04",
      },
    ]);
  });

  it("leaves the lines it was given unchanged", () => {
    const before = structuredClone(ORDER);
    change([{ code: "SKU-1", quantity: 1 }]);
    change(undefined);
    problems([{ code: "SKU-1", quantity: 9 }]);
    expect(ORDER).toEqual(before);
  });

  it("conserves quantity, price and VAT per item identifier whenever it succeeds", () => {
    const lineArb = fc.record({
      position: fc.integer({ min: 1, max: 3 }),
      code: fc.constantFrom("A", "B"),
      ean: fc.constantFrom("1", null),
      name: fc.constantFrom("x", "y"),
      type: fc.constantFrom("PHYSICAL", "DISCOUNT"),
      quantity: fc.integer({ min: 1, max: 6 }),
      totalPriceAmount: fc.integer({ min: -100_000, max: 100_000 }),
      totalVatAmount: fc.integer({ min: -20_000, max: 20_000 }),
      state: fc.constantFrom(...LINE_STATES),
    });
    const linesArb = fc
      .array(lineArb, { minLength: 1, maxLength: 8 })
      .map((ls) => ls.map((fields, i) => line({ ...fields, id: `L${i}` })));
    const selectorArb = fc.record(
      {
        code: fc.constantFrom("A", "B", "C"),
        ean: fc.constantFrom("1", "2"),
        name: fc.constantFrom("x", "y"),
        type: fc.constantFrom("PHYSICAL", "DISCOUNT"),
        quantity: fc.oneof(fc.integer({ min: 0, max: 8 }), fc.constant(1.5)),
      },
      { requiredKeys: [] },
    );
    const args = fc.record({
      lines: linesArb,
      selectors: fc.option(fc.array(selectorArb, { maxLength: 4 }), { nil: undefined }),
      eligibleStates: fc.subarray([...LINE_STATES]),
      target: fc.constantFrom<LineState>("SENT", "CANCELLED", "RETURNED"),
    });
    const key = (l: Line) => JSON.stringify([l.code, l.ean, l.name, l.type]);
    const totals = (ls: readonly Line[]) => {
      const byKey = new Map<string, [number, number, number]>();
      for (const l of ls) {
        const [q, p, v] = byKey.get(key(l)) ?? [0, 0, 0];
        byKey.set(key(l), [q + l.quantity, p + l.totalPriceAmount, v + l.totalVatAmount]);
      }
      return Object.fromEntries(byKey);
    };

    let successes = 0;
    fc.assert(
      fc.property(args, ({ lines, selectors, eligibleStates, target }) => {
        const outcome = applyToLines(
          lines,
          selectors,
          (l) => eligibleStates.includes(l.state),
          { state: target },
          idsFrom("N"),
        );
        if (!outcome.ok) {
          expect(outcome.problems.length).toBeGreaterThan(0);
          for (const p of outcome.problems) expect(p.attribute).toMatch(/^items\[\d+\](\.quantity)?$/);
          return;
        }
        successes++;
        const { lines: after, created, updated, touchedAmount } = outcome.value;
        expect(totals(after)).toEqual(totals(lines));
        expect(after).toHaveLength(lines.length + created.length);
        expect(new Set(after.map((l) => l.id)).size).toBe(after.length);
        expect(after).toEqual(sortLines(after));
        for (const l of after) expect(l.quantity).toBeGreaterThanOrEqual(1);
        const original = new Map(lines.map((l) => [l.id, l]));
        const touched = after.filter(
          (l) => created.includes(l.id) || (updated.includes(l.id) && l.quantity === original.get(l.id)?.quantity),
        );
        expect(touchedAmount).toBe(touched.reduce((sum, l) => sum + l.totalPriceAmount, 0));
        for (const l of touched) expect(l.state).toBe(target);
        if (selectors?.every((s) => s.quantity !== undefined)) {
          const units = touched.reduce((sum, l) => sum + l.quantity, 0);
          expect(units).toBe(selectors.reduce((sum, s) => sum + (s.quantity ?? 0), 0));
        }
      }),
      { numRuns: 3000 },
    );
    expect(successes).toBeGreaterThan(300);
  });
});

describe("financedAmount", () => {
  it("sums every line but the cancelled ones, discounts and returned lines included", () => {
    const lines = [
      line({ id: "1", totalPriceAmount: 1000 }),
      line({ id: "2", totalPriceAmount: -150, type: "DISCOUNT" }),
      line({ id: "3", totalPriceAmount: 400, state: "CANCELLED" }),
      line({ id: "4", totalPriceAmount: 250, state: "RETURNED" }),
      line({ id: "5", totalPriceAmount: 50, state: "DELIVERED" }),
    ];
    expect(financedAmount(lines)).toBe(1150);
  });

  it("is zero for no lines", () => {
    expect(financedAmount([])).toBe(0);
  });
});

describe("vatPerRate", () => {
  it("sums the VAT of the lines not cancelled per rate, in order of the rates' first appearance", () => {
    const lines = [
      line({ id: "1", totalVatRate: 21, totalVatAmount: 210 }),
      line({ id: "2", totalVatRate: 12, totalVatAmount: 12 }),
      line({ id: "3", totalVatRate: 21, totalVatAmount: 42, state: "RETURNED" }),
      line({ id: "4", totalVatRate: 0, totalVatAmount: 0, state: "CANCELLED" }),
    ];
    expect(vatPerRate(lines)).toEqual([
      { vatRate: 21, amount: 252 },
      { vatRate: 12, amount: 12 },
    ]);
  });
});

describe("sortLines", () => {
  it("orders by position, then by id, without changing its input", () => {
    const lines = [
      { id: "b", position: 2 },
      { id: "a", position: 2 },
      { id: "z", position: 1 },
      { id: "B", position: 2 },
    ];
    const copy = [...lines];
    expect(sortLines(lines).map((l) => l.id)).toEqual(["z", "B", "a", "b"]);
    expect(lines).toEqual(copy);
  });
});
