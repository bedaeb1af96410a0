import { describe, expect, it } from "vitest";
import { errorFields } from "../src/log";

/** As Drizzle wraps a failed query (drizzle-orm's DrizzleQueryError). */
class DrizzleQueryError extends Error {
  constructor(
    readonly query: string,
    readonly params: unknown[],
    cause: unknown,
  ) {
    super(`Failed query: ${query}\nparams: ${params}`, { cause });
    this.name = "DrizzleQueryError";
  }
}

describe("errorFields", () => {
  it("keeps a failed query's SQL and the database's reason, never the values it ran with", () => {
    const d1 = Object.assign(new Error("D1_ERROR: database is locked: SQLITE_BUSY"), { code: "SQLITE_BUSY" });
    const fields = errorFields(
      new DrizzleQueryError("select * from partners where email = ?", ["jana@example.com"], d1),
    );
    expect(fields).toEqual({
      error: {
        name: "DrizzleQueryError",
        message: "Failed query: select * from partners where email = ?",
        cause: { name: "Error", message: "D1_ERROR: database is locked: SQLITE_BUSY", code: "SQLITE_BUSY" },
      },
    });
    expect(JSON.stringify(fields)).not.toContain("jana@example.com");
  });

  it("keeps a Durable Object's flags, and follows at most five causes (a cycle ends)", () => {
    const looped = new Error("outer");
    looped.cause = Object.assign(new Error("Durable Object is overloaded."), {
      overloaded: true,
      retryable: false,
      cause: looped,
    });
    const fields = errorFields(looped);
    expect(fields.error.cause).toMatchObject({
      message: "Durable Object is overloaded.",
      overloaded: true,
      retryable: false,
    });
    let depth = 0;
    for (let e: { cause?: unknown } | undefined = fields.error; e; e = e.cause as typeof e) depth++;
    expect(depth).toBe(5);
  });

  it("takes anything thrown, not only errors", () => {
    expect(errorFields("gone")).toEqual({ error: { name: "string", message: "gone" } });
  });
});
