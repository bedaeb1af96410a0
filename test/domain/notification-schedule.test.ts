import { describe, expect, it } from "vitest";
import { RETRY_DELAYS_SECONDS, retryDelaySeconds } from "../../src/domain/notification-schedule";

describe("retryDelaySeconds", () => {
  it.each([
    [1, 60],
    [2, 300],
    [3, 900],
    [4, 3600],
    [5, 10_800],
    [6, 21_600],
    [7, 43_200],
    [8, 43_200],
  ])("after %i failed attempts the next one waits %i seconds", (failed, seconds) => {
    expect(retryDelaySeconds(failed)).toBe(seconds);
  });

  it.each([9, 10, 100, Number.POSITIVE_INFINITY])("after %s failed attempts the event is dead-lettered", (failed) => {
    expect(retryDelaySeconds(failed)).toBeNull();
  });

  it.each([0, -1, -100, Number.NaN])("a count of %s is treated as one failed attempt", (failed) => {
    expect(retryDelaySeconds(failed)).toBe(60);
  });

  it("a fractional count uses the attempts completed", () => {
    expect(retryDelaySeconds(2.7)).toBe(300);
  });

  it("the schedule totals just over two days of retries", () => {
    expect(RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0)).toBe(60 + 300 + 900 + 3600 + 10_800 + 21_600 + 86_400);
  });
});
