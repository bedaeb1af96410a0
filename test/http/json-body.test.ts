import { describe, expect, it } from "vitest";
import { MAX_DEPTH, nestingDepth } from "../../src/http/json-body";
import { call, signIn } from "../support/api";
import { applicationCount, applicationRequest } from "../support/factories";

/** No error answer may be larger than this, whatever the request (issue: bounded work per request). */
const MAX_ERROR_BYTES = 64 * 1024;

interface ErrorAnswer {
  error: string;
  error_description: string;
  errors: { code: string; message: string; attribute?: string }[];
}

async function bounded(res: Response): Promise<ErrorAnswer> {
  const text = await res.text();
  expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(MAX_ERROR_BYTES);
  return JSON.parse(text) as ErrorAnswer;
}

describe("request bodies: work and answer bounded whatever their size or shape", () => {
  it("answers a login body of 1.1 million lone surrogates with a 400 listing 100 entries, the last counting the rest", async () => {
    const body = `[${Array(1_100_000).fill('"\\ud800"').join(",")}]`;
    expect(body.length).toBeGreaterThan(9_000_000);
    const res = await call("POST", "/authentication/v1/partner", { body });
    expect(res.status).toBe(400);
    const answer = await bounded(res);
    expect(answer.errors).toHaveLength(100);
    expect(answer.errors[0]).toMatchObject({ code: "INVALID_VALUE", attribute: "[0]" });
    expect(answer.errors[98]).toMatchObject({ code: "INVALID_VALUE", attribute: "[98]" });
    expect(answer.errors[99]).toEqual({
      code: "MORE_PROBLEMS",
      message: "1099901 more problems are not listed",
      severity: "ERROR",
    });
    expect(answer.error_description).toBe(
      "[0]: holds an unpaired UTF-16 surrogate, which is no character (and 1099999 more)",
    );
  });

  it("refuses a body nested 5,000 deep (400 naming the limit), never a stack overflow", async () => {
    const body = `${"[".repeat(5000)}"\\ud800"${"]".repeat(5000)}`;
    const res = await call("POST", "/authentication/v1/partner", { body });
    expect(res.status).toBe(400);
    expect((await bounded(res)).errors).toEqual([
      {
        code: "INVALID_REQUEST",
        message: `the body nests objects and arrays deeper than ${MAX_DEPTH} levels`,
        severity: "ERROR",
      },
    ]);
  });

  it("accepts nesting up to the limit, and brackets inside strings do not count", async () => {
    const { partner, token } = await signIn();
    const deepUnknown = `${"[".repeat(MAX_DEPTH - 1)}1${"]".repeat(MAX_DEPTH - 1)}`;
    const request = { ...applicationRequest(), extra: JSON.parse(deepUnknown), note: "[".repeat(100) };
    expect(nestingDepth(JSON.stringify(request))).toBe(MAX_DEPTH);
    const res = await call("POST", "/financing/v1/applications", { token, body: request });
    expect(res.status).toBe(201);
    expect(await applicationCount(partner.id)).toBe(1);
    // One level more is refused, and nothing is created.
    const deeper = { ...applicationRequest(), extra: [JSON.parse(deepUnknown)] };
    const refused = await call("POST", "/financing/v1/applications", { token, body: deeper });
    expect(refused.status).toBe(400);
    expect(await applicationCount(partner.id)).toBe(1);
  });

  it.each([
    10_000, 60_000, 1_000_000,
  ])("refuses %i empty items whole (one problem at order.items) before validating any of them", async (count) => {
    const { partner, token } = await signIn();
    const request = applicationRequest();
    const body = { ...request, order: { ...request.order, items: Array(count).fill({}) } };
    const res = await call("POST", "/financing/v1/applications", { token, body });
    expect(res.status).toBe(400);
    const answer = await bounded(res);
    expect(answer.errors).toEqual([
      {
        code: "INVALID_VALUE",
        message: "Too big: expected array to have <=100 items",
        severity: "ERROR",
        attribute: "order.items",
      },
    ]);
    expect(await applicationCount(partner.id)).toBe(0);
  });

  it("keeps each echoed text short: a 1 MB key holding a surrogate is named by its first 500 characters", async () => {
    const key = `${"k".repeat(1_000_000)}\\ud800`;
    const res = await call("POST", "/authentication/v1/partner", { body: `{"${key}": 1}` });
    expect(res.status).toBe(400);
    const [entry] = (await bounded(res)).errors;
    expect(entry!.attribute).toBe(`${"k".repeat(500)}…`);
  });

  it("lists fewer entries when they are long: 10,000 long surrogate keys stay within the answer's bound", async () => {
    const keys = Array.from(
      { length: 10_000 },
      (_, i) => `"${String(i).padStart(5, "0")}${"\\u0001".repeat(80)}\\ud800": 0`,
    );
    const res = await call("POST", "/authentication/v1/partner", { body: `{${keys.join(",")}}` });
    expect(res.status).toBe(400);
    const { errors } = await bounded(res);
    expect(errors.length).toBeLessThan(100);
    expect(errors.at(-1)).toEqual({
      code: "MORE_PROBLEMS",
      message: `${10_000 - (errors.length - 1)} more problems are not listed`,
      severity: "ERROR",
    });
  });
});
