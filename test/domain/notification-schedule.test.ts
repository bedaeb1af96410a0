import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MAX_HOP_SECONDS,
  RETRY_DELAYS_SECONDS,
  retryAfterSeconds,
  retryDelaySeconds,
} from "../../src/domain/notification-schedule";

const MIDDLE = 0.5; // no jitter

describe("retryDelaySeconds", () => {
  it.each([
    [1, 60],
    [2, 300],
    [3, 1800],
    [4, 7200],
    [5, 18_000],
    [6, 36_000],
    [7, 43_200],
    [12, 43_200],
  ])("after %i failed attempts the next one waits %i seconds, before jitter", (failed, seconds) => {
    expect(retryDelaySeconds(failed, MIDDLE)).toBe(seconds);
  });

  it("jitters every delay within ±10 %, never beyond the queue's 12-hour hop", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.double({ min: 0, max: 1, maxExcluded: true }), (failed, r) => {
        const delay = retryDelaySeconds(failed, r)!;
        const nominal = RETRY_DELAYS_SECONDS[failed - 1]!;
        expect(delay).toBeGreaterThanOrEqual(Math.floor(nominal * 0.9));
        expect(delay).toBeLessThanOrEqual(Math.min(MAX_HOP_SECONDS, Math.ceil(nominal * 1.1)));
      }),
    );
  });

  it.each([13, 14, 100, Number.POSITIVE_INFINITY])("after %s failed attempts the schedule is spent", (failed) => {
    expect(retryDelaySeconds(failed)).toBeNull();
  });

  it.each([0, -1, -100, Number.NaN])("a count of %s is treated as one failed attempt", (failed) => {
    expect(retryDelaySeconds(failed, MIDDLE)).toBe(60);
  });

  it("spans at least 72 hours from the first attempt to the last, even with every delay at its shortest", () => {
    const span = (random: number) =>
      Array.from({ length: 12 }, (_, i) => retryDelaySeconds(i + 1, random)!).reduce((a, b) => a + b, 0);
    expect(span(0)).toBeGreaterThanOrEqual(72 * 3600);
    expect(span(0)).toBe(290_304); // 80.6 h
    expect(span(MIDDLE)).toBe(322_560); // 89.6 h
    expect(span(0.999999)).toBeLessThanOrEqual(96 * 3600);
  });
});

describe("retryAfterSeconds", () => {
  const now = Date.UTC(2027, 1, 1, 9, 30);
  it("reads delta-seconds and HTTP dates", () => {
    expect(retryAfterSeconds("120", now)).toBe(120);
    expect(retryAfterSeconds(new Date(now + 3_600_000).toUTCString(), now)).toBe(3600);
  });
  it("ignores what it cannot read, and caps a request to wait at 72 hours", () => {
    expect(retryAfterSeconds(null, now)).toBeUndefined();
    expect(retryAfterSeconds("soon", now)).toBeUndefined();
    expect(retryAfterSeconds("9999999", now)).toBe(72 * 3600);
    expect(retryAfterSeconds(new Date(now - 60_000).toUTCString(), now)).toBe(0);
  });
});
