import { describe, expect, it } from "vitest";
import { withRetries } from "../../src/applications/operate";
import { WriteConflict } from "../../src/db/applications";
import { ApiError } from "../../src/http/errors";
import { signIn } from "../support/api";
import { eventsOf } from "../support/factories";
import { app, approved, order, put } from "../support/orders";

describe("racing operations", () => {
  it("parallel send and cancel: exactly one wins and the state is consistent", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const [send, cancel] = await Promise.all([put(token, `${app(id)}/order/send`), put(token, `${app(id)}/cancel`)]);
    expect([send.status, cancel.status].sort()).toEqual([200, 422]);
    const after = await order(token, id);
    if (send.status === 200) {
      expect(after.applicationInfo).toMatchObject({ state: "READY", stateReason: "READY_SHIPPED" });
      expect(after.state).toBe("SENT");
    } else {
      expect(after.applicationInfo).toMatchObject({ state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" });
      expect(after.state).toBe("CANCELLED");
    }
    expect(await eventsOf(id)).toHaveLength(2);
  });
});

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
