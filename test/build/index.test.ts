import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { VERIFIED } from "../../build/index";

/** The installed version of a package (read as a file: not every package exports its package.json). */
const installed = (name: string) =>
  (
    JSON.parse(readFileSync(path.join(import.meta.dirname, "../../node_modules", name, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;

describe("the build wing's fence", () => {
  it.each(Object.entries(VERIFIED))("runs on %s %s, the version its internals were verified at", (name, version) => {
    expect(
      installed(name),
      `${name} is ${installed(name)}, but the internals build/index.ts lists were verified at ${version}: re-verify each, run test/build/, test/db/compiler/ and test/http/openapi.compiled.test.ts, then set VERIFIED`,
    ).toBe(version);
  });
});
