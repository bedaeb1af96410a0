import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatDateTime } from "../../src/clock";
import { lastCutoff, nextCutoff } from "../../src/settlement/payout-cutoff";

const HOUR = 3_600_000;
const PRAGUE = "Europe/Prague";
const prague = (ms: number) => formatDateTime(ms, PRAGUE);
const utc = (iso: string) => Date.parse(iso);

describe("the payout cutoff", () => {
  it("is the hour's last and next stroke of the service's clock", () => {
    const at = utc("2026-11-23T12:00:00Z");
    expect(new Date(lastCutoff(at, 0, "UTC")).toISOString()).toBe("2026-11-23T00:00:00.000Z");
    expect(new Date(nextCutoff(at, 0, "UTC")).toISOString()).toBe("2026-11-24T00:00:00.000Z");
    expect(prague(lastCutoff(at, 0, PRAGUE))).toBe("2026-11-23T00:00:00+01:00");
    expect(prague(nextCutoff(at, 18, PRAGUE))).toBe("2026-11-23T18:00:00+01:00");
  });

  it("counts a cutoff at its instant as passed: that instant closes, the next is a day on", () => {
    const midnight = utc("2026-11-22T23:00:00Z");
    expect(lastCutoff(midnight, 0, PRAGUE)).toBe(midnight);
    expect(prague(nextCutoff(midnight, 0, PRAGUE))).toBe("2026-11-24T00:00:00+01:00");
    expect(lastCutoff(midnight - 1, 0, PRAGUE)).toBe(midnight - 24 * HOUR);
  });

  it("keeps Prague's midnight across the last Sunday of March (a 23-hour day) and of October (25 hours)", () => {
    const march = utc("2026-03-29T12:00:00Z");
    expect(prague(lastCutoff(march, 0, PRAGUE))).toBe("2026-03-29T00:00:00+01:00");
    expect(prague(nextCutoff(march, 0, PRAGUE))).toBe("2026-03-30T00:00:00+02:00");
    expect(nextCutoff(march, 0, PRAGUE) - lastCutoff(march, 0, PRAGUE)).toBe(23 * HOUR);
    const october = utc("2026-10-25T12:00:00Z");
    expect(prague(lastCutoff(october, 0, PRAGUE))).toBe("2026-10-25T00:00:00+02:00");
    expect(prague(nextCutoff(october, 0, PRAGUE))).toBe("2026-10-26T00:00:00+01:00");
    expect(nextCutoff(october, 0, PRAGUE) - lastCutoff(october, 0, PRAGUE)).toBe(25 * HOUR);
  });

  it("takes 2:00 that never came in March where the clock jumped, and the first of October's two", () => {
    const jump = utc("2026-03-29T01:00:00Z");
    expect(prague(jump)).toBe("2026-03-29T03:00:00+02:00");
    expect(nextCutoff(utc("2026-03-28T23:30:00Z"), 2, PRAGUE)).toBe(jump);
    expect(lastCutoff(jump + 1, 2, PRAGUE)).toBe(jump);
    expect(prague(lastCutoff(jump - 1, 2, PRAGUE))).toBe("2026-03-28T02:00:00+01:00");

    const first = utc("2026-10-25T00:00:00Z");
    expect(prague(first)).toBe("2026-10-25T02:00:00+02:00");
    expect(prague(first + HOUR)).toBe("2026-10-25T02:00:00+01:00");
    expect(lastCutoff(first + HOUR + 1, 2, PRAGUE)).toBe(first);
    expect(prague(nextCutoff(first, 2, PRAGUE))).toBe("2026-10-26T02:00:00+01:00");
  });

  it("is one a day in any zone, at any instant: last ≤ at < next, the hour on the zone's clock", () => {
    const zones = ["UTC", PRAGUE, "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "America/Santiago"];
    fc.assert(
      fc.property(
        fc.integer({ min: utc("2020-01-01T00:00:00Z"), max: utc("2030-12-31T00:00:00Z") }),
        fc.integer({ min: 0, max: 23 }),
        fc.constantFrom(...zones),
        (at, hour, zone) => {
          const last = lastCutoff(at, hour, zone);
          const next = nextCutoff(at, hour, zone);
          expect(last).toBeLessThanOrEqual(at);
          expect(next).toBeGreaterThan(at);
          // A day of 23 to 25 hours (Lord Howe moves by half an hour), never two cutoffs between.
          expect(next - last).toBeGreaterThanOrEqual(23 * HOUR);
          expect(next - last).toBeLessThanOrEqual(25 * HOUR);
          expect(nextCutoff(last, hour, zone)).toBe(next);
          expect(lastCutoff(next - 1, hour, zone)).toBe(last);
          // On the zone's clock: the hour, or else the clock jumped over it right then (its offset changed).
          const [clock, offset] = [formatDateTime(next, zone).slice(11, 16), formatDateTime(next, zone).slice(19)];
          if (clock !== `${String(hour).padStart(2, "0")}:00`)
            expect(formatDateTime(next - 1, zone).slice(19)).not.toBe(offset);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("refuses an hour that is not 0 to 23", () => {
    expect(() => lastCutoff(0, 24, "UTC")).toThrow(RangeError);
    expect(() => nextCutoff(0, 1.5, "UTC")).toThrow(RangeError);
  });
});
