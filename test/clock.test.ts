import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatDate, formatDateTime } from "../src/clock";

/** The plain reading of the wall clock through Intl for every instant: what the cached offsets must equal. */
const formats = new Map<string, Intl.DateTimeFormat>();

function reference(ms: number, timeZone: string): string {
  const parts: Record<string, string> = {};
  const format =
    formats.get(timeZone) ??
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
  formats.set(timeZone, format);
  for (const p of format.formatToParts(new Date(ms))) parts[p.type] = p.value;
  const wall = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
  const offset = Math.round((wall - Math.floor(ms / 1000) * 1000) / 60000);
  const abs = Math.abs(offset);
  const sign = offset < 0 ? "-" : "+";
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

// Whole-hour, half-hour and quarter-hour zones, with and without daylight saving time (Lord Howe moves
// by 30 minutes), so that every kind of transition is crossed.
const ZONES = ["Europe/Prague", "UTC", "America/New_York", "America/St_Johns", "Asia/Kathmandu", "Australia/Lord_Howe"];

describe("service time formatting", () => {
  it("matches the wall clock of Intl at any instant of 2000-2040, around transitions too", () => {
    const from = Date.UTC(2000, 0, 1);
    const to = Date.UTC(2040, 0, 1);
    fc.assert(
      fc.property(fc.integer({ min: from, max: to }), fc.constantFrom(...ZONES), (ms, zone) => {
        expect(formatDateTime(ms, zone)).toBe(reference(ms, zone));
      }),
      { numRuns: 3000 },
    );
  });

  it("is exact on both sides of a daylight saving change in Prague", () => {
    // 2026-03-29 01:00 UTC: Prague goes from +01:00 to +02:00.
    const change = Date.UTC(2026, 2, 29, 1, 0, 0);
    expect(formatDateTime(change - 1000, "Europe/Prague")).toBe("2026-03-29T01:59:59+01:00");
    expect(formatDateTime(change, "Europe/Prague")).toBe("2026-03-29T03:00:00+02:00");
    expect(formatDate(change - 1000, "Europe/Prague")).toBe("2026-03-29");
  });

  it("is exact minute by minute around every transition of 2026 in each zone", () => {
    const offset = (ms: number, zone: string) => reference(ms, zone).slice(19);
    let transitions = 0;
    for (const zone of ZONES) {
      for (let hour = Date.UTC(2026, 0, 1); hour < Date.UTC(2027, 0, 1); hour += 3600_000) {
        if (offset(hour, zone) === offset(hour + 3600_000, zone)) continue;
        transitions++;
        for (let ms = hour - 3600_000; ms <= hour + 2 * 3600_000; ms += 59_000) {
          expect(formatDateTime(ms, zone)).toBe(reference(ms, zone));
        }
      }
    }
    // Prague, New York, St John's and Lord Howe each change twice a year.
    expect(transitions).toBe(8);
  });

  it("is exact around transitions off the quarter hour (America/St_Johns changed at 00:01 in 2009)", () => {
    const zone = "America/St_Johns";
    let changes = 0;
    for (let hour = Date.UTC(2009, 0, 1); hour < Date.UTC(2010, 0, 1); hour += 3600_000) {
      if (reference(hour, zone).slice(19) === reference(hour + 3600_000, zone).slice(19)) continue;
      changes++;
      for (let ms = hour - 900_000; ms <= hour + 3600_000 + 900_000; ms += 10_000) {
        expect(formatDateTime(ms, zone)).toBe(reference(ms, zone));
      }
    }
    expect(changes).toBe(2);
    // 2009-03-08 00:01 local (03:31 UTC): from -03:30 to -02:30, one minute past a quarter hour.
    expect(formatDateTime(Date.UTC(2009, 2, 8, 3, 30, 59), zone)).toBe("2009-03-08T00:00:59-03:30");
    expect(formatDateTime(Date.UTC(2009, 2, 8, 3, 31, 0), zone)).toBe("2009-03-08T01:01:00-02:30");
  });

  it("stays exact past its bound: 10,500 quarter hours (it keeps 10,000) drop the oldest, read again when asked", () => {
    // A quarter hour before and after Prague's spring change of 2026, then the 10,500 that follow it.
    const start = Date.UTC(2026, 2, 29, 0, 45);
    const quarter = 15 * 60 * 1000;
    for (let i = 0; i < 10_500; i++) formatDateTime(start + i * quarter + 7_000, "Europe/Prague");
    for (const i of [0, 1, 2, 3, 499, 500, 10_499]) {
      const at = start + i * quarter + 7_000;
      expect(formatDateTime(at, "Europe/Prague")).toBe(reference(at, "Europe/Prague"));
    }
  });

  it("formats UTC without reading any zone data", () => {
    expect(formatDateTime(Date.UTC(2026, 10, 23, 21, 5, 9, 999), "UTC")).toBe("2026-11-23T21:05:09+00:00");
  });
});
