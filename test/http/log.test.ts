import { afterEach, describe, expect, it, vi } from "vitest";
import { call, signIn } from "../support/api";
import { createApplication } from "../support/factories";
import { faultyD1, PLATFORM_ERRORS } from "../support/faults";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every line the service logs while `run` runs, parsed. */
async function logged(run: () => Promise<unknown>) {
  const lines: Record<string, unknown>[] = [];
  for (const level of ["log", "warn", "error"] as const) {
    vi.spyOn(console, level).mockImplementation((line: unknown) => {
      lines.push(JSON.parse(String(line)));
    });
  }
  await run();
  return lines;
}

describe("error log lines", () => {
  it("say why a query failed (the database's own error) and never with which values", async () => {
    const { partner, token } = await signIn();
    const { id } = await createApplication(token);
    const d1 = faultyD1(1, PLATFORM_ERRORS.notTransient);
    let status = 0;
    const lines = await logged(async () => {
      status = (await call("GET", `/financing/v1/applications/${id}`, { token, vars: d1.vars })).status;
    });

    expect(status).toBe(500);
    const failure = lines.find((l) => l.message === "request failed, answered 500")!;
    expect(failure).toMatchObject({
      level: "error",
      requestId: expect.any(String),
      error: {
        // The failed statement, wrapped as Drizzle wraps one (a plain Error by name; src/db/precompiled.ts).
        message: expect.stringMatching(/^Failed query: select /),
        cause: { name: "Error", message: "D1_ERROR: no such table: applications_v2: SQLITE_ERROR" },
      },
    });
    // The request's own line, with the same id.
    expect(lines.find((l) => l.message === "request")).toMatchObject({
      level: "error",
      status: 500,
      requestId: failure.requestId,
    });
    const text = JSON.stringify(lines);
    expect(text).not.toContain(id);
    expect(text).not.toContain("params");
    expect(lines.map((l) => l.partnerId).filter(Boolean)).toEqual([partner.id]);
  });

  it("log a transient failure answered 503 as a warning, with its cause", async () => {
    const { token } = await signIn();
    const d1 = faultyD1(100, PLATFORM_ERRORS.connectionLost);
    const lines = await logged(() => call("GET", "/financing/v1/applications", { token, vars: d1.vars }));
    expect(lines.find((l) => l.message === "transient failure, answered 503")).toMatchObject({
      level: "warn",
      error: { cause: { message: "D1_ERROR: Network connection lost." } },
    });
  });
});
