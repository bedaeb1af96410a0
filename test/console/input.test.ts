import { describe, expect, it } from "vitest";
import { dateRangeTerms, endOfDay, parseAmount, wallClockInstant } from "../../src/console/input";

describe("reading what people type", () => {
  it("reads amounts as written, with a point or a comma and spaces between thousands", () => {
    expect(parseAmount("150")).toBe(15000);
    expect(parseAmount("150.5")).toBe(15050);
    expect(parseAmount("1 234,56")).toBe(123456);
    expect(parseAmount("0.01")).toBe(1);
    for (const text of ["", "-5", "1.234", "ten", "1e3", "1,2,3", "12345678901234"])
      expect(parseAmount(text)).toBeNull();
  });

  it("reads dates and times on the service's wall clock, daylight saving included", () => {
    expect(wallClockInstant("2026-11-23", "UTC")).toBe(Date.parse("2026-11-23T00:00:00Z"));
    expect(wallClockInstant("2026-11-23T10:15", "Europe/Prague")).toBe(Date.parse("2026-11-23T09:15:00Z"));
    expect(wallClockInstant("2026-07-01T10:15", "Europe/Prague")).toBe(Date.parse("2026-07-01T08:15:00Z"));
    // The first hour after the spring change (02:00 → 03:00 local, 01:00 UTC).
    expect(wallClockInstant("2026-03-29T03:30", "Europe/Prague")).toBe(Date.parse("2026-03-29T01:30:00Z"));
    for (const text of ["2026-02-30", "2026-13-01", "2026-11-23T24:00", "23.11.2026", ""]) {
      expect(wallClockInstant(text, "UTC")).toBeNull();
    }
  });

  it("ends a day where the next one starts on that clock, also on a 23-hour day", () => {
    expect(endOfDay("2026-11-23", "Europe/Prague")).toBe(Date.parse("2026-11-23T23:00:00Z"));
    expect(endOfDay("2026-03-29", "Europe/Prague")).toBe(Date.parse("2026-03-29T22:00:00Z"));
    expect(endOfDay("2026-12-31", "UTC")).toBe(Date.parse("2027-01-01T00:00:00Z"));
    // A date input sends a date: a date and time is no day to end.
    expect(endOfDay("2026-11-23T10:00", "UTC")).toBeNull();
  });

  it("turns a list form's from and to dates into filter terms that include both days", () => {
    const labels = { from: "Created from", to: "Created to" };
    expect(dateRangeTerms("createdAt", { from: "2026-11-23", to: "2026-11-24" }, labels, "Europe/Prague")).toEqual({
      terms: [
        { name: "createdAt", operator: "gteq", values: ["2026-11-23T00:00:00+01:00"] },
        { name: "createdAt", operator: "lt", values: ["2026-11-25T00:00:00+01:00"] },
      ],
      problems: [],
    });
    expect(dateRangeTerms("occurredAt", { from: "", to: "" }, labels, "UTC")).toEqual({ terms: [], problems: [] });
    expect(dateRangeTerms("createdAt", { from: "2026-11-23T10:00", to: "2026-02-30" }, labels, "UTC").problems).toEqual(
      ["Created from must be a date such as 2026-11-23.", "Created to must be a date such as 2026-11-23."],
    );
  });
});
