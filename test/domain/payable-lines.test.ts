import { describe, expect, it } from "vitest";
import type { LineState } from "../../src/domain/application-state";
import { payableLineIds } from "../../src/domain/payable-lines";
import { application, item } from "../support/domain";

/** An order's lines in the given states: goods G1, G2 and a discount D. */
function lines(goods: [LineState, LineState], discount: LineState) {
  const [g1, g2, d] = application([item("G1", 1000), item("G2", 500), item("D", -100)]).lines;
  return [
    { ...g1!, state: goods[0] },
    { ...g2!, state: goods[1] },
    { ...d!, state: discount },
  ];
}

const payableCodes = (states: Parameters<typeof lines>, settlesOn: "SENT" | "DELIVERED") => {
  const all = lines(...states);
  const ids = payableLineIds(all, settlesOn);
  return all.filter((l) => ids.has(l.id)).map((l) => l.code);
};

describe("payable lines", () => {
  it("are the goods sent, delivered or returned when the partner settles on sending", () => {
    expect(payableCodes([["SENT", "PROCESSING"], "PROCESSING"], "SENT")).toEqual(["G1", "D"]);
    expect(payableCodes([["DELIVERED", "CANCELLED"], "SENT"], "SENT")).toEqual(["G1", "D"]);
    expect(payableCodes([["RETURNED", "RETURNED"], "RETURNED"], "SENT")).toEqual(["G1", "G2", "D"]);
    expect(payableCodes([["PROCESSING", "CANCELLED"], "PROCESSING"], "SENT")).toEqual([]);
  });

  it("are the goods delivered or returned (a return proves delivery) when the partner settles on delivery", () => {
    expect(payableCodes([["SENT", "SENT"], "SENT"], "DELIVERED")).toEqual([]);
    expect(payableCodes([["SENT", "DELIVERED"], "SENT"], "DELIVERED")).toEqual(["G2", "D"]);
    expect(payableCodes([["RETURNED", "SENT"], "PROCESSING"], "DELIVERED")).toEqual(["G1", "D"]);
  });

  it("take the discount with the first payable goods, never once it is cancelled", () => {
    expect(payableCodes([["SENT", "PROCESSING"], "CANCELLED"], "SENT")).toEqual(["G1"]);
  });
});
