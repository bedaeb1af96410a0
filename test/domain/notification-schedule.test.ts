import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  afterFailure,
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

describe("what follows a failed attempt", () => {
  const at = 1_000_000;
  const failed = (httpStatus: number | null, retryAfter: string | null = null) => ({
    httpStatus,
    error: "HTTP 500",
    retryAfter,
  });

  it("ends the deliveries on 410 Gone, and after the schedule is spent", () => {
    expect(afterFailure(1, failed(410), at)).toMatchObject({ status: "FAILED", failedAttempts: 1 });
    expect(afterFailure(RETRY_DELAYS_SECONDS.length + 1, failed(500), at)).toMatchObject({
      status: "FAILED",
      failureReason: `no 2xx answer in 13 attempts over 72 hours; last: HTTP 500`,
    });
  });

  it("waits the schedule's delay, a 429 or 503 receiver's Retry-After, and an open circuit's end, whichever is last", () => {
    expect(afterFailure(1, failed(500), at, 0, 0.5)).toEqual({
      status: "PENDING",
      failedAttempts: 1,
      nextAttemptAt: at + 60_000,
    });
    expect(afterFailure(1, failed(503, "600"), at, 0, 0.5)).toMatchObject({ nextAttemptAt: at + 600_000 });
    // A Retry-After on an answer that does not ask for patience is the receiver's business, not a rule.
    expect(afterFailure(1, failed(500, "600"), at, 0, 0.5)).toMatchObject({ nextAttemptAt: at + 60_000 });
    expect(afterFailure(1, failed(null), at, at + 300_000, 0.5)).toMatchObject({ nextAttemptAt: at + 300_000 });
  });
});
