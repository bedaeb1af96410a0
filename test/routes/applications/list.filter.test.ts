import { beforeAll, describe, expect, it } from "vitest";
import { signIn } from "../../support/api";
import {
  AWKWARD_ORDER_NUMBERS,
  byId,
  collect,
  generate,
  ids,
  insert,
  LIST,
  list,
  type Seeded,
} from "../../support/collections";

let token: string;
let seeded: Seeded[];

beforeAll(async () => {
  const owner = await signIn();
  const stranger = await signIn();
  token = owner.token;
  seeded = generate(300, 3);
  await insert(owner.partner.id, seeded);
  // Another partner's applications share every value: none of them may ever match.
  await insert(stranger.partner.id, generate(20, 3));
});

type Op = "lt" | "lteq" | "eq" | "gteq" | "gt";
const compare: Record<Op, (x: number | string, y: number | string) => boolean> = {
  lt: (x, y) => x < y,
  lteq: (x, y) => x <= y,
  eq: (x, y) => x === y,
  gteq: (x, y) => x >= y,
  gt: (x, y) => x > y,
};
const ORDERED: Op[] = ["lt", "lteq", "eq", "gteq", "gt"];

/** Date-times are printed to the second: a filter compares what the partner sees. */
const shown = (ms: number) => Math.floor(ms / 1000) * 1000;
const iso = (ms: number, offsetHours = 0) =>
  new Date(ms + offsetHours * 3_600_000)
    .toISOString()
    .replace(/Z$/, offsetHours ? `+${String(offsetHours).padStart(2, "0")}:00` : "+00:00");

/** Sends the filter form-encoded as a whole, as URLSearchParams (and curl --data-urlencode) do. */
const query = (filter: string, extra: Record<string, string> = {}) =>
  new URLSearchParams({ filter, limit: "100", ...extra }).toString();

async function expectMatches(filter: string, predicate: (a: Seeded) => boolean) {
  const expected = ids(seeded.filter(predicate).sort(byId));
  expect(await collect(token, query(filter))).toEqual(expected);
  return expected;
}

describe("GET /financing/v1/applications filters", () => {
  it.each([
    ["state|eq|READY", (a: Seeded) => a.state === "READY"],
    ["state|in|PROCESSING,REJECTED", (a: Seeded) => ["PROCESSING", "REJECTED"].includes(a.state)],
    ["stateReason|eq|READY_SHIPPED", (a: Seeded) => a.stateReason === "READY_SHIPPED"],
    ["stateReason|in|CANCELLED_NOT_PAID,CANCELLED_RETURNED", (a: Seeded) => a.stateReason.startsWith("CANCELLED_")],
    ["type|eq|PAY_IN_THREE", (a: Seeded) => a.type === "PAY_IN_THREE"],
    ["type|in|DEFERRED_PAYMENT,PAY_IN_THREE", () => true],
    ["customerEmail|eq|CUSTOMER3@example.COM", (a: Seeded) => a.email.toLowerCase() === "customer3@example.com"],
    [
      "customerEmail|in|customer3@example.com,Customer7@Example.com",
      (a: Seeded) => ["customer3@example.com", "customer7@example.com"].includes(a.email.toLowerCase()),
    ],
    ["variableSymbol|eq|12", (a: Seeded) => a.variableSymbols.includes("12")],
    ["variableSymbol|eq|9999999999", (a: Seeded) => a.variableSymbols.includes("9999999999")],
    ["variableSymbol|in|1,77777", (a: Seeded) => a.variableSymbols.some((s) => s === "1" || s === "77777")],
    ["orderNumber|in|ORD-0001,ORD-0075,NOPE", (a: Seeded) => ["ORD-0001", "ORD-0075"].includes(a.orderNumber)],
    ["totalPrice|in|100,999999", (a: Seeded) => a.totalPrice === 100 || a.totalPrice === 999999],
  ])("%s matches what the JS predicate matches", async (filter, predicate) => {
    const expected = await expectMatches(filter, predicate);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(seeded.length + 1);
  });

  it("variableSymbol matches a whole symbol, never a part of one", async () => {
    const expected = await expectMatches("variableSymbol|eq|12", (a) => a.variableSymbols.includes("12"));
    const partial = seeded.filter((a) => a.variableSymbols.includes("123") && !a.variableSymbols.includes("12"));
    expect(partial.length).toBeGreaterThan(0);
    for (const a of partial) expect(expected).not.toContain(a.id);
  });

  it.each(ORDERED)("orderNumber|%s compares as text, in the order of sort=orderNumber", async (op) => {
    const pivot = seeded[50]!.orderNumber;
    const expected = await expectMatches(`orderNumber|${op}|${pivot}`, (a) => compare[op](a.orderNumber, pivot));
    expect(expected.length).toBeGreaterThan(0);
  });

  it.each(ORDERED)("totalPrice|%s compares minor units", async (op) => {
    const expected = await expectMatches(`totalPrice|${op}|10000`, (a) => compare[op](a.totalPrice, 10000));
    expect(expected.length).toBeGreaterThan(0);
  });

  describe.each(["createdAt", "updatedAt"] as const)("%s", (name) => {
    // An instant stored with 300 ms: the partner sees it as a whole second.
    const pivot = () => shown(seeded.find((a) => a[name] % 1000 === 300)![name]);

    it.each(ORDERED)(`${name}|%s compares the date-time as printed, to the second`, async (op) => {
      const t = pivot();
      const expected = await expectMatches(`${name}|${op}|${iso(t)}`, (a) => compare[op](shown(a[name]), t));
      expect(expected.length).toBeGreaterThan(0);
    });

    it("reads any offset and fraction digits", async () => {
      const t = pivot();
      await expectMatches(`${name}|eq|${iso(t, 2)}`, (a) => shown(a[name]) === t);
      // No printed value is 0.5 s past a second: eq matches nothing, lt takes the second itself.
      await expectMatches(`${name}|eq|${iso(t + 500).replace(".500", ".500000")}`, () => false);
      await expectMatches(`${name}|lt|${iso(t + 500)}`, (a) => shown(a[name]) <= t);
      await expectMatches(`${name}|gt|${iso(t + 500)}`, (a) => shown(a[name]) > t);
    });

    it("in matches any of the date-times", async () => {
      const t = pivot();
      const u = shown(seeded.find((a) => shown(a[name]) !== t)![name]);
      await expectMatches(`${name}|in|${iso(t)},${iso(u, 1)}`, (a) => [t, u].includes(shown(a[name])));
    });
  });

  it("combines several filters with AND, also on one attribute", async () => {
    const t = shown(seeded[10]!.createdAt);
    await expectMatches(
      `state|eq|READY;totalPrice|gt|2500;totalPrice|lt|200000;createdAt|lt|${iso(t)}`,
      (a) => a.state === "READY" && a.totalPrice > 2500 && a.totalPrice < 200000 && shown(a.createdAt) < t,
    );
  });

  it("answers an empty page when nothing matches", async () => {
    const page = await list(token, `${LIST}?${query("orderNumber|eq|NOPE")}`);
    expect(page).toEqual({ data: [], pagingInfo: { itemsPerPage: 100 } });
  });
});

describe("GET /financing/v1/applications filter values with separators", () => {
  const [commaSemicolonPipe, percent, plus] = AWKWARD_ORDER_NUMBERS as [string, string, string];
  const idOf = (orderNumber: string) => seeded.find((a) => a.orderNumber === orderNumber)!.id;

  it("reads literal separators with percent-encoded ones inside values", async () => {
    const page = await list(token, `${LIST}?filter=orderNumber|eq|A%2CB%3BC%7CD`);
    expect(page.data.map((a) => a.id)).toEqual([idOf(commaSemicolonPipe)]);
    // A literal + is a plus sign here, so offsets can be typed as they are.
    const plusPage = await list(token, `${LIST}?filter=orderNumber|eq|x+y%20z;createdAt|gt|2020-01-01T00:00:00+01:00`);
    expect(plusPage.data.map((a) => a.id)).toEqual([idOf(plus)]);
  });

  it("reads a filter encoded as a whole, with each value encoded before", async () => {
    const filter = `orderNumber|in|${[commaSemicolonPipe, percent, plus].map(encodeURIComponent).join(",")}`;
    const expected = [commaSemicolonPipe, percent, plus].map(idOf).sort();
    expect(await collect(token, query(filter))).toEqual(expected);
  });

  it("reads the query exactly as curl --data-urlencode writes it (the README's examples)", async () => {
    // curl -G --data-urlencode 'filter=orderNumber|eq|A%2CB%3BC%7CD' --data-urlencode 'sort=-totalPrice,createdAt'
    const page = await list(
      token,
      `${LIST}?filter=orderNumber%7ceq%7cA%252CB%253BC%257CD&sort=-totalPrice%2ccreatedAt`,
    );
    expect(page.data.map((a) => a.id)).toEqual([idOf(commaSemicolonPipe)]);
    // curl -G --data-urlencode 'filter=state|in|READY,PROCESSING;createdAt|gteq|2026-11-22T11:20:00+01:00'
    const t = Date.parse("2026-11-22T11:20:00+01:00");
    const expected = ids(
      seeded.filter((a) => ["READY", "PROCESSING"].includes(a.state) && shown(a.createdAt) >= t).sort(byId),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(seeded.filter((a) => ["READY", "PROCESSING"].includes(a.state)).length);
    expect(
      await collect(
        token,
        "filter=state%7cin%7cREADY%2cPROCESSING%3bcreatedAt%7cgteq%7c2026-11-22T11%3a20%3a00%2b01%3a00&limit=100",
      ),
    ).toEqual(expected);
  });

  it("keeps such values intact in nextPage and prevPage", async () => {
    const filter = `orderNumber|in|A%2CB%3BC%7CD,50%25 off,x+y z`;
    const expected = [commaSemicolonPipe, percent, plus].map(idOf).sort();
    const first = await list(token, `${LIST}?${query(filter, { limit: "1" })}`);
    const second = await list(token, first.pagingInfo.nextPage!);
    const third = await list(token, second.pagingInfo.nextPage!);
    expect([first, second, third].map((p) => p.data[0]!.id)).toEqual(expected);
    expect(third.pagingInfo.nextPage).toBeUndefined();
    const back = await list(token, third.pagingInfo.prevPage!);
    expect(back.data.map((a) => a.id)).toEqual([expected[1]]);
    expect(new URL(first.pagingInfo.nextPage!, "http://x").searchParams.get("filter")).toBe(
      "orderNumber|in|A%2CB%3BC%7CD,50%25 off,x+y z",
    );
  });
});
