import { describe, expect, it } from "vitest";
// Read as a file: drizzle-orm's package exports do not include its package.json.
import drizzle from "../../../node_modules/drizzle-orm/package.json";
import { VERIFIED_DRIZZLE_ORM } from "../../../src/db/compiler";

describe("the query compiler's fence", () => {
  it("runs on the drizzle-orm version its internals were verified at", () => {
    expect(
      drizzle.version,
      `drizzle-orm is ${drizzle.version}, but src/db/compiler/ was verified at ${VERIFIED_DRIZZLE_ORM}: re-verify every internal its header (src/db/compiler/index.ts) lists, run test/db/compiler/, then set VERIFIED_DRIZZLE_ORM`,
    ).toBe(VERIFIED_DRIZZLE_ORM);
  });
});
