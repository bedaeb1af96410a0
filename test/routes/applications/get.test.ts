import { describe, expect, it } from "vitest";
import { call, isRequestId, json, signIn } from "../../support/api";
import { app, approved } from "../../support/orders";

/**
 * The GET of an application is served by the validators compiled ahead of time (generated/validators.ts):
 * what it answers must be what zod's validator answered, refusals included.
 */
describe("GET /financing/v1/applications/{applicationId}", () => {
  it("reads the owner's application, and answers 404 to another partner and for an unknown id", async () => {
    const owner = await signIn();
    const id = await approved(owner.token);
    const res = await call("GET", app(id), { token: owner.token });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id, state: "READY" });

    const stranger = await signIn();
    expect((await call("GET", app(id), { token: stranger.token })).status).toBe(404);
    expect((await call("GET", app("X".repeat(64)), { token: owner.token })).status).toBe(404);
  });

  it("refuses an id over 64 characters (counted as zod counts them) with zod's problem at applicationId", async () => {
    const { token } = await signIn();
    const res = await call("GET", app("X".repeat(65)), { token });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body).toEqual({
      error: "invalid_request",
      error_description: "applicationId: Too big: expected string to have <=64 characters",
      requestId: expect.any(String),
      errors: [
        {
          code: "INVALID_VALUE",
          message: "Too big: expected string to have <=64 characters",
          severity: "ERROR",
          attribute: "applicationId",
        },
      ],
    });
    expect(isRequestId(body.requestId)).toBe(true);
    // 32 characters of two UTF-16 units each: 64, as zod's `max(64)` counts a string's length.
    const emoji = encodeURIComponent("😀".repeat(32));
    expect((await call("GET", app(emoji), { token })).status).toBe(404);
    expect((await call("GET", app(`${emoji}X`), { token })).status).toBe(400);
  });
});
