import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { STATEMENTS, WRITE_TABLES } from "../../generated/statements";
import { database } from "../../src/db/client";
import { buildStatements, buildWriteTables } from "../../src/db/statements";

describe("the statements built ahead of time", () => {
  it("are, as the build wrote them, what the Worker's Drizzle builds from the same queries", () => {
    const built = buildStatements(database(env));
    expect(Object.keys(STATEMENTS).sort()).toEqual(Object.keys(built).sort());
    expect(JSON.parse(JSON.stringify(STATEMENTS))).toStrictEqual(JSON.parse(JSON.stringify(built)));
  });

  it("hold the write tables as the Worker's schema reads them", () => {
    expect(WRITE_TABLES).toStrictEqual(JSON.parse(JSON.stringify(buildWriteTables())));
  });
});
