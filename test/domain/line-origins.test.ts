import { describe, expect, it } from "vitest";
import { originsOf } from "../../src/domain/line-origins";
import { planChange, planReturn, planSend } from "../../src/domain/order-operations";
import { application, applied, context, item } from "../support/domain";
import { orderContent } from "../support/order-sequences";

describe("line origins", () => {
  it("name each line itself when the operation took whole lines", () => {
    const ctx = context();
    const current = application([item("KB-01", 1000), item("MS-01", 500)], "READY", ctx);
    const after = applied(current, planSend(current, { sentDate: "2026-11-23" }, ctx));
    const origins = originsOf(current.lines, after.lines);
    expect([...origins].map(([id, origin]) => [id, origin.id])).toEqual(current.lines.map((l) => [l.id, l.id]));
  });

  it("name the line a piece was split from, the rest keeping its own id", () => {
    const ctx = context();
    const start = application([item("KB-01", 1000), item("CABLE", 300, 3)], "READY", ctx);
    const sent = applied(start, planSend(start, { sentDate: "2026-11-23" }, ctx));
    const after = applied(sent, planReturn(sent, { items: [{ code: "CABLE", quantity: 1 }] }, ctx));
    const cable = sent.lines.find((l) => l.code === "CABLE")!;
    const piece = after.lines.find((l) => !sent.lines.some((s) => s.id === l.id))!;
    expect(piece).toMatchObject({ code: "CABLE", quantity: 1, totalPriceAmount: 100, state: "RETURNED" });
    const origins = originsOf(sent.lines, after.lines);
    expect(origins.get(piece.id)).toBe(cable);
    expect(origins.get(cable.id)).toBe(cable);
  });

  it("name none for the lines of new content", () => {
    const ctx = context();
    const current = application([item("KB-01", 1000), item("MS-01", 500)], "READY", ctx);
    const after = applied(current, planChange(current, { order: orderContent([item("KB-01", 900)]) }, ctx));
    expect(originsOf(current.lines, after.lines).size).toBe(0);
  });
});
