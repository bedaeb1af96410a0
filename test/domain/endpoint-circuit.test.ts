import { describe, expect, it } from "vitest";
import {
  BASE_COOLDOWN_MS,
  CONCURRENCY,
  circuitAfter,
  deliverySlots,
  isOpen,
  MAX_COOLDOWN_MS,
  THRESHOLD,
  unreachable,
} from "../../src/domain/endpoint-circuit";

const TIMEOUT = { httpStatus: null, error: "timeout: no answer within 10 s" };

describe("the circuit of a notification endpoint", () => {
  it(`opens after ${THRESHOLD} unreachable attempts in a row, for a cool-down that doubles up to ${MAX_COOLDOWN_MS / 60_000} minutes`, () => {
    let circuit = null as ReturnType<typeof circuitAfter>;
    const opened: (number | null)[] = [];
    for (let n = 1; n <= THRESHOLD + 6; n++) {
      circuit = circuitAfter(circuit, TIMEOUT, 0);
      opened.push(circuit!.openUntil);
    }
    expect(opened.slice(0, THRESHOLD - 1)).toEqual([null, null]);
    expect(opened.slice(THRESHOLD - 1)).toEqual([
      BASE_COOLDOWN_MS,
      2 * BASE_COOLDOWN_MS,
      4 * BASE_COOLDOWN_MS,
      8 * BASE_COOLDOWN_MS,
      16 * BASE_COOLDOWN_MS,
      MAX_COOLDOWN_MS,
      MAX_COOLDOWN_MS,
    ]);
    expect(circuit).toMatchObject({ consecutiveFailures: THRESHOLD + 6, lastFailure: TIMEOUT.error });
    expect(isOpen(circuit, MAX_COOLDOWN_MS - 1)).toBe(true);
    expect(isOpen(circuit, MAX_COOLDOWN_MS)).toBe(false);
  });

  it("closes on any HTTP answer: the endpoint answered, even with an error", () => {
    const open = { consecutiveFailures: 5, openUntil: 1000, lastFailure: "timeout" };
    expect(circuitAfter(open, { httpStatus: 500, error: "HTTP 500" }, 0)).toBeNull();
    expect(circuitAfter(open, { httpStatus: 200, error: null }, 0)).toBeNull();
  });

  it("counts Cloudflare's own could-not-reach statuses as unreachable, the receiver's statuses not", () => {
    expect([522, 524, 530, null].map((httpStatus) => unreachable({ httpStatus }))).toEqual([true, true, true, true]);
    expect([200, 410, 429, 500, 503].map((httpStatus) => unreachable({ httpStatus }))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it("lets CONCURRENCY attempts fly while closed or open (open ones fail fast), one while half-open", () => {
    const failing = { consecutiveFailures: THRESHOLD - 1, openUntil: null, lastFailure: "timeout" };
    const open = { consecutiveFailures: THRESHOLD, openUntil: 1_000, lastFailure: "timeout" };
    expect(deliverySlots(null, 0)).toBe(CONCURRENCY);
    expect(deliverySlots(failing, 0)).toBe(CONCURRENCY);
    expect(deliverySlots(open, 999)).toBe(CONCURRENCY);
    expect(deliverySlots(open, 1_000)).toBe(1);
    expect(deliverySlots(circuitAfter(open, { httpStatus: 204, error: null }, 1_000), 1_000)).toBe(CONCURRENCY);
  });
});
