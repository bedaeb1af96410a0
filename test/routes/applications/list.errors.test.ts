import { beforeAll, describe, expect, it } from "vitest";
import { call, isRequestId, json, signIn } from "../../support/api";
import { generate, insert, LIST, type Seeded } from "../../support/collections";

let token: string;
let own: Seeded[];
let strangers: Seeded[];

beforeAll(async () => {
  const owner = await signIn();
  const stranger = await signIn();
  token = owner.token;
  own = generate(5, 5);
  strangers = generate(5, 6);
  await insert(owner.partner.id, own);
  await insert(stranger.partner.id, strangers);
});

interface ErrorResponse {
  error: string;
  error_description: string;
  requestId: string;
  errors: { code: string; message: string; severity: string; attribute: string }[];
}

async function rejected(query: string): Promise<ErrorResponse> {
  const res = await call("GET", `${LIST}?${query}`, { token });
  expect(res.status).toBe(400);
  const body = await json<ErrorResponse>(res);
  expect(body.error).toBe("invalid_request");
  expect(isRequestId(body.requestId)).toBe(true);
  return body;
}

const UNKNOWN_ID = "01J0000000000000000000000Z";
const tooManyValues = Array.from({ length: 31 }, (_, i) => `ORD-${i}`).join(",");

describe("GET /financing/v1/applications answers 400 naming the parameter", () => {
  it.each([
    [
      "sort=foo",
      "sort",
      'unknown attribute "foo"; sortable: createdAt, updatedAt, state, type, orderNumber, totalPrice, id',
    ],
    ["sort=-customerEmail", "sort", 'unknown attribute "customerEmail"'],
    ["sort=createdAt,-createdAt", "sort", '"createdAt" is given more than once'],
    ["sort=createdAt,,id", "sort", "has an empty attribute name"],
    ["sort=", "sort", "has an empty attribute name"],
    ["sort=id&sort=-id", "sort", "must be given at most once"],
    ["filter=foo|eq|1", "filter", 'unknown filter name "foo"; filterable: state, stateReason, type'],
    ["filter=constructor|eq|1", "filter", 'unknown filter name "constructor"'],
    ["filter=state|like|READY", "filter", 'unknown operator "like"'],
    ["filter=state|lt|READY", "filter", '"state" does not support operator "lt"; it supports eq, in'],
    ["filter=stateReason|gteq|REJECTED", "filter", '"stateReason" does not support operator "gteq"'],
    ["filter=type|gt|PAY_IN_THREE", "filter", '"type" does not support operator "gt"'],
    ["filter=variableSymbol|gt|1", "filter", '"variableSymbol" does not support operator "gt"'],
    ["filter=customerEmail|lteq|a@example.com", "filter", '"customerEmail" does not support operator "lteq"'],
    ["filter=state|eq|DONE", "filter", 'value "DONE" of "state" must be one of PROCESSING, READY, REJECTED, CANCELLED'],
    ["filter=stateReason|in|REJECTED,NOPE", "filter", 'value "NOPE" of "stateReason" must be one of'],
    ["filter=type|eq|LEASING", "filter", 'value "LEASING" of "type" must be one of'],
    ["filter=state|in|READY,", "filter", 'value "" of "state" must be one of'],
    ["filter=state|eq|READY,CANCELLED", "filter", 'operator "eq" in "state|eq|READY,CANCELLED" takes one value'],
    ["filter=state", "filter", '"state" must have the shape <name>|<operator>|<values>'],
    ["filter=state|eq", "filter", "must have the shape"],
    ["filter=state|eq|READY|x", "filter", "must have the shape"],
    ["filter=state|eq|READY;", "filter", '"" must have the shape'],
    ["filter=", "filter", "must have the shape"],
    ["filter=createdAt|gt|yesterday", "filter", 'value "yesterday" of "createdAt" must be an ISO 8601 date-time'],
    ["filter=updatedAt|lt|2026-11-22T10:15:00", "filter", "must be an ISO 8601 date-time with offset"],
    ["filter=createdAt|eq|2026-11-22", "filter", "must be an ISO 8601 date-time with offset"],
    ["filter=totalPrice|gt|12.5", "filter", 'value "12.5" of "totalPrice" must be an integer'],
    ["filter=totalPrice|eq|EUR", "filter", "must be an integer"],
    ["filter=variableSymbol|eq|12a", "filter", 'value "12a" of "variableSymbol" must be 1 to 10 digits'],
    ["filter=variableSymbol|eq|12345678901", "filter", "must be 1 to 10 digits"],
    ["filter=variableSymbol|eq|%25", "filter", 'value "%" of "variableSymbol" must be 1 to 10 digits'],
    ["filter=customerEmail|eq|nobody", "filter", 'value "nobody" of "customerEmail" must be an e-mail address'],
    ["filter=orderNumber|eq|", "filter", 'value "" of "orderNumber" must be 1 to 100 characters'],
    [`filter=orderNumber|eq|${"x".repeat(101)}`, "filter", "must be 1 to 100 characters"],
    ["filter=orderNumber|eq|50%", "filter", 'value "50%" is not validly percent-encoded'],
    ["filter=orderNumber%7Ceq%7C50%", "filter", "is not validly percent-encoded"],
    [`filter=orderNumber|in|${tooManyValues}`, "filter", "holds 31 values; at most 30 are allowed"],
    ["filter=state|eq|READY&filter=type|eq|PAY_IN_THREE", "filter", "must be given at most once"],
    ["limit=0", "limit", "must be an integer from 1 to 100"],
    ["limit=101", "limit", "must be an integer from 1 to 100"],
    ["limit=abc", "limit", "must be an integer from 1 to 100"],
    ["limit=2.5", "limit", "must be an integer from 1 to 100"],
    ["limit=", "limit", "must be an integer from 1 to 100"],
    [`after=${UNKNOWN_ID}&before=${UNKNOWN_ID}`, "before", "must not be combined with after"],
    [`after=${UNKNOWN_ID}`, "after", `"${UNKNOWN_ID}" is not the id of an item of this list`],
    [`before=${UNKNOWN_ID}`, "before", `"${UNKNOWN_ID}" is not the id of an item of this list`],
    ["after=", "after", ""],
    [`after=${"A".repeat(65)}`, "after", ""],
  ])("%s → 400 on %s", async (query, attribute, message) => {
    const body = await rejected(query);
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]).toMatchObject({ code: "INVALID_VALUE", severity: "ERROR", attribute });
    expect(body.errors[0]!.message).toContain(message);
    expect(body.error_description).toBe(`${attribute}: ${body.errors[0]!.message}`);
  });

  it("rejects an after or before id of another partner as it rejects an unknown one", async () => {
    for (const cursor of ["after", "before"]) {
      const body = await rejected(`${cursor}=${strangers[0]!.id}`);
      expect(body.errors).toEqual([
        {
          code: "INVALID_VALUE",
          severity: "ERROR",
          attribute: cursor,
          message: `"${strangers[0]!.id}" is not the id of an item of this list; use an id from a page served`,
        },
      ]);
    }
  });

  it("accepts its own ids as cursors", async () => {
    const res = await call("GET", `${LIST}?after=${own[0]!.id}`, { token });
    expect(res.status).toBe(200);
  });

  it("reports every problem of sort and filter at once", async () => {
    const body = await rejected("sort=foo,bar&filter=state|lt|READY;totalPrice|eq|x");
    expect(body.errors.map((e) => [e.attribute, e.message])).toEqual([
      ["sort", expect.stringContaining('"foo"')],
      ["sort", expect.stringContaining('"bar"')],
      ["filter", expect.stringContaining('operator "lt"')],
      ["filter", expect.stringContaining('value "x"')],
    ]);
    expect(body.error_description).toMatch(/\(and 3 more\)$/);
  });
});
