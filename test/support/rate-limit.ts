/** Shared set-up of the rate-limit tests: a small quota, a fake clock, the token's object. */
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, vi } from "vitest";
import { sha256Hex } from "../../src/auth/crypto";
import type { Vars } from "./api";

/** A small quota of their own: the rest of the suite runs with a quota too large to notice. */
export const QUOTA: Vars = { RATE_LIMIT_REQUESTS: "20", RATE_LIMIT_WINDOW_SECONDS: "60" };
export const UNKNOWN_APPLICATION = "/financing/v1/applications/01J000000000000000000000000";
/** Fake time far from real time, so that alarms scheduled by the objects do not fire on their own. */
export const T0 = new Date("2027-05-10T08:00:00Z");

export const tokenObject = async (token: string) =>
  env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`token:${await sha256Hex(token)}`));

/** The clock at T0 before each test of the calling file; real timers and mocks after it. */
export function useFakeClock() {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
}
