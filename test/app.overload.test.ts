import { describe, expect, it } from "vitest";
import { READ_RETRY_DELAYS_MS } from "../src/transient";
import { call, json, signIn } from "./support/api";
import { applicationCount, applicationRequest, createApplication } from "./support/factories";
import { faultyD1, faultyObjects, PLATFORM_ERRORS } from "./support/faults";

const attempts = READ_RETRY_DELAYS_MS.length + 1;

describe("transient failures of D1 and Durable Objects", () => {
  it("a read absorbs a blip: D1 lost its connection on every attempt but the last, and the answer is 200", async () => {
    const { token } = await signIn();
    const { id } = await createApplication(token);
    const d1 = faultyD1(attempts - 1, PLATFORM_ERRORS.connectionLost);
    const res = await call("GET", `/financing/v1/applications/${id}`, { token, vars: d1.vars });
    expect(res.status).toBe(200);
    expect((await json(res)).id).toBe(id);
    expect(d1.state.executions).toBe(attempts);
  });

  it("a read that keeps failing is 503 with Retry-After and the envelope, after a bounded number of attempts", async () => {
    const { token } = await signIn();
    const d1 = faultyD1(100, PLATFORM_ERRORS.databaseReset);
    const res = await call("GET", "/financing/v1/applications", { token, vars: d1.vars });
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("1");
    expect(await json(res)).toMatchObject({ error: "service_unavailable", requestId: expect.any(String) });
    expect(d1.state.executions).toBe(attempts);
  });

  it("a write is not retried: 503, nothing stored, and the client's retry with its key is safe", async () => {
    const { partner, token } = await signIn();
    const d1 = faultyD1(1, PLATFORM_ERRORS.connectionLost);
    const res = await call("POST", "/financing/v1/applications", {
      token,
      body: applicationRequest(),
      vars: d1.vars,
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("1");
    expect(await applicationCount(partner.id)).toBe(0);
    expect(d1.state.executions).toBe(1);
  });

  it("an error that is not transient stays a 500, without retries", async () => {
    const { token } = await signIn();
    const d1 = faultyD1(1, PLATFORM_ERRORS.notTransient);
    const res = await call("GET", "/financing/v1/applications/01J000000000000000000000000", {
      token,
      vars: d1.vars,
    });
    expect(res.status).toBe(500);
    expect(d1.state.executions).toBe(1);
  });

  it("an overloaded login throttle is 503 with a longer Retry-After, never a login without its count", async () => {
    const { partner } = await signIn();
    const res = await call("POST", "/authentication/v1/partner", {
      body: { username: partner.username, password: partner.password },
      vars: { RATE_LIMITER: faultyObjects("attempt", PLATFORM_ERRORS.objectOverloaded) },
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("5");
    expect(await json(res)).toMatchObject({ error: "service_unavailable" });
  });

  it("an overloaded token object is 503 with Retry-After 5, and its load is not passed on to D1", async () => {
    const { token } = await signIn();
    const { id } = await createApplication(token);
    const d1 = faultyD1(0, PLATFORM_ERRORS.connectionLost);
    const vars = { ...d1.vars, RATE_LIMITER: faultyObjects("hit", PLATFORM_ERRORS.objectOverloaded) };
    const res = await call("GET", `/financing/v1/applications/${id}`, { token, vars });
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("5");
    expect(await json(res)).toMatchObject({ error: "service_unavailable" });
    // Not the unmetered fallback: no token lookup on the primary, no read.
    expect(d1.state.executions).toBe(0);
    const anonymous = await call("GET", "/v1/health", { vars });
    expect(anonymous.status).toBe(503);
    expect(anonymous.headers.get("Retry-After")).toBe("5");
  });

  it("the customer's page says so too: a 503 page with Retry-After", async () => {
    const { token } = await signIn();
    const { gatewayRedirectUrl } = await createApplication(token);
    const d1 = faultyD1(100, PLATFORM_ERRORS.connectionLost);
    const res = await call("GET", gatewayRedirectUrl, { vars: d1.vars });
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("1");
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(await res.text()).toContain("We are busy for a moment");
  });
});
