import { describe, expect, it } from "vitest";
import { WriteConflict, withRetries } from "../../src/db/applications";
import { ApiError } from "../../src/http/errors";

describe("withRetries", () => {
  it("re-runs a round that lost a race and answers what the winning round answers", async () => {
    let rounds = 0;
    const result = await withRetries(async () => {
      if (++rounds < 3) throw new WriteConflict();
      return "written";
    });
    expect(result).toBe("written");
    expect(rounds).toBe(3);
  });

  it("answers 409 conflict, not a 500, when every round loses", async () => {
    let rounds = 0;
    const error = await withRetries(async () => {
      rounds++;
      throw new WriteConflict();
    }, 4).catch((e: unknown) => e);
    expect(rounds).toBe(4);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, error: "conflict", errors: [{ code: "CONCURRENT_MODIFICATION" }] });
  });

  it("passes any other failure through at once", async () => {
    let rounds = 0;
    const failure = new Error("D1 is down");
    await expect(
      withRetries(async () => {
        rounds++;
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(rounds).toBe(1);
  });
});
