import { afterEach, describe, expect, it, vi } from "vitest";
import {
  BUSY_READ_RETRY_DELAYS_MS,
  isPartnerMoving,
  isTransient,
  PARTNER_MOVING,
  READ_RETRY_DELAYS_MS,
  retryAfterSeconds,
} from "../src/transient";
import { call, json, signIn } from "./support/api";
import { createApplication } from "./support/factories";
import { faultyD1, PLATFORM_ERRORS } from "./support/faults";

/** A busy database is met only locally (a second process on the SQLite file), and waited for longer than other blips. */
const attempts = BUSY_READ_RETRY_DELAYS_MS.length + 1;
/** As Drizzle wraps a D1 error: its own message (the query and its parameters), D1's as the cause. */
const wrapped = (cause: Error) => new Error("Failed query: select 1\nparams: ", { cause });

describe("which failures are transient", () => {
  it("a busy database is, by SQLite's code, with its extended codes, and wrapped as Drizzle wraps it", () => {
    expect(isTransient(PLATFORM_ERRORS.databaseBusy())).toBe(true);
    expect(isTransient(wrapped(PLATFORM_ERRORS.databaseBusy()))).toBe(true);
    expect(isTransient(new Error("D1_ERROR: cannot commit transaction: SQLITE_BUSY_SNAPSHOT"))).toBe(true);
    expect(retryAfterSeconds(PLATFORM_ERRORS.databaseBusy())).toBe(1);
  });

  it("a busy database as the local runtime reports it to the Worker is", () => {
    expect(isTransient(PLATFORM_ERRORS.databaseBusyLocally())).toBe(true);
    expect(isTransient(wrapped(PLATFORM_ERRORS.databaseBusyLocally()))).toBe(true);
    expect(isTransient(new Error("D1_ERROR: internal error; reference = 0123456789abcdefghijklmn"))).toBe(true);
  });

  it("a write refused because its partner is moving between shards is, and says so", () => {
    const refused = new Error(`D1_ERROR: ${PARTNER_MOVING}: SQLITE_CONSTRAINT`);
    expect(isTransient(wrapped(refused))).toBe(true);
    expect(isPartnerMoving(wrapped(refused))).toBe(true);
    expect(retryAfterSeconds(refused)).toBe(1);
    expect(isPartnerMoving(PLATFORM_ERRORS.databaseBusy())).toBe(false);
  });

  it("an error of the query is not, whatever its prose says", () => {
    expect(isTransient(PLATFORM_ERRORS.notTransient())).toBe(false);
    expect(isTransient(wrapped(PLATFORM_ERRORS.constraint()))).toBe(false);
    // The code decides, not the words: a value that reads "database is locked" in a failing query.
    expect(isTransient(new Error("D1_ERROR: no such column: database is locked: SQLITE_ERROR"))).toBe(false);
    // The runtime's internal-error marker counts only on D1's errors.
    expect(isTransient(new Error("internal error; reference = 0123456789abcdefghijklmn"))).toBe(false);
  });
});

describe("a busy database, met by a request", () => {
  afterEach(() => vi.restoreAllMocks());

  it("a read absorbs it for longer than another blip: busy on every attempt but the last, and the answer is 200", async () => {
    expect(attempts).toBeGreaterThan(READ_RETRY_DELAYS_MS.length + 1);
    const { token } = await signIn();
    const { id } = await createApplication(token);
    const d1 = faultyD1(attempts - 1, PLATFORM_ERRORS.databaseBusyLocally);
    const res = await call("GET", "/financing/v1/applications?limit=1", { token, vars: d1.vars });
    expect(res.status).toBe(200);
    expect((await json<{ data: { id: string }[] }>(res)).data[0]?.id).toBe(id);
    expect(d1.state.executions).toBe(attempts);
  });

  it("a read that stays busy is 503 with Retry-After, in the envelope, after the bounded attempts, logged with its cause", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { token } = await signIn();
    const d1 = faultyD1(100, PLATFORM_ERRORS.databaseBusy);
    const res = await call("GET", "/financing/v1/applications?limit=1", { token, vars: d1.vars });
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("1");
    const body = await json(res);
    expect(body).toMatchObject({ error: "service_unavailable", requestId: res.headers.get("X-Request-Id") });
    expect(d1.state.executions).toBe(attempts);
    // Logged as a warning with its cause: D1's message and code, under Drizzle's wrapping of the query.
    const line = warn.mock.calls.map(([text]) => JSON.parse(String(text))).find((l) => l.requestId === body.requestId);
    expect(line).toMatchObject({ level: "warn", message: "transient failure, answered 503" });
    expect(JSON.stringify(line.error)).toContain("database is locked: SQLITE_BUSY");
  });
});
