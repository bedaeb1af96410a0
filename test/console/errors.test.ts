import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { config } from "../../src/config";
import { consoleError } from "../../src/console/errors";
import type { HonoEnv } from "../../src/env";
import { ApiError } from "../../src/http/errors";
import { visibleText } from "../support/console";

/** The console's answer to `error` thrown by a handler under /console. */
async function pageFor(error: Error) {
  const app = new Hono<HonoEnv>()
    .use(async (c, next) => {
      c.set("config", config(c.env));
      c.set("requestId", "req-1");
      await next();
    })
    .get("/console/x", () => {
      throw error;
    })
    .onError(consoleError);
  const res = await app.request("/console/x", {}, env);
  return { status: res.status, text: visibleText(await res.text()) };
}

describe("the console's error pages", () => {
  it.each([
    [
      "a form token sent again with other values",
      ApiError.of([{ code: "IDEMPOTENCY_KEY_REUSED", message: "this Idempotency-Key was used with another request" }]),
      422,
      "This form was already sent with other values",
    ],
    [
      "the storage quota",
      ApiError.of([{ code: "STORAGE_QUOTA_EXCEEDED", message: "the partner's storage quota is used up" }]),
      422,
      "Your storage is full",
    ],
    [
      "a form still being handled",
      ApiError.of([{ code: "IDEMPOTENCY_KEY_IN_USE", message: "retry when the first request has finished" }]),
      409,
      "Still working on it",
    ],
    ["plain HTTP", new ApiError("https_required", "requests must use HTTPS"), 403, "HTTPS is required"],
    ["the call quota", new ApiError("rate_limit_exceeded", "call quota exceeded"), 429, "Too many requests"],
    [
      "a refusal it has no words of its own for",
      ApiError.of([{ code: "REFUND_LIMIT_EXCEEDED", message: "the refund exceeds the refundable amount" }]),
      422,
      "This could not be done",
    ],
    [
      "a body too large",
      new ApiError("request_too_large", "request body exceeds 1 bytes"),
      413,
      "This form is too large",
    ],
    [
      "any other client error, with its own status",
      new ApiError("unsupported_media_type", "Content-Type must be application/json"),
      415,
      "This request could not be handled",
    ],
  ])("says %s in the console's words, never the API's", async (_case, error, status, heading) => {
    const page = await pageFor(error);
    expect(page.status).toBe(status);
    expect(page.text).toContain(heading);
    expect(page.text).not.toContain(error.message);
    for (const detail of (error as ApiError).errors ?? []) expect(page.text).not.toContain(detail.message);
  });
});
