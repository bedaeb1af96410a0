import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { inputsFingerprint, upToDate } from "../../build/worker";

/** A checkout in a folder of its own: a source, a generator of the wing, the locked dependencies. */
function checkout() {
  const base = mkdtempSync(path.join(tmpdir(), "build-inputs-"));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(base, file)), { recursive: true });
    writeFileSync(path.join(base, file), text);
  };
  write("src/routes/applications/schema.ts", "export const max = 255;\n");
  write("build/request-compiler.ts", "export const compile = 1;\n");
  write("package-lock.json", '{"packages":{"node_modules/zod":{"version":"4.4.3"}}}\n');
  write("docs/partner/orders.md", "not an input\n");
  return { base, write };
}

describe("the Worker's build decides it is up to date only from every input", () => {
  it.each([
    ["a source", "src/routes/applications/schema.ts", "export const max = 256;\n"],
    ["a generator of the build wing", "build/request-compiler.ts", "export const compile = 2;\n"],
    ["a new module", "src/routes/orders/lookup.ts", "export {};\n"],
    ["a dependency's version", "package-lock.json", '{"packages":{"node_modules/zod":{"version":"4.5.0"}}}\n'],
  ])("rebuilds, artefacts first, when %s changes", (_, file, text) => {
    const { base, write } = checkout();
    const built = inputsFingerprint(base, "src/index.ts");
    const folder = path.join(base, "dist/worker");
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      path.join(folder, ".build-inputs.json"),
      JSON.stringify({ entry: "src/index.ts", fingerprint: built }),
    );
    expect(upToDate(folder, "src/index.ts", inputsFingerprint(base, "src/index.ts"))).toBe(true);

    write(file, text);
    expect(upToDate(folder, "src/index.ts", inputsFingerprint(base, "src/index.ts"))).toBe(false);
  });

  it("is up to date when only what is not an input changes, and for its own entry only", () => {
    const { base, write } = checkout();
    const built = inputsFingerprint(base, "src/index.ts");
    write("docs/partner/orders.md", "changed\n");
    expect(inputsFingerprint(base, "src/index.ts")).toBe(built);
    expect(inputsFingerprint(base, "bench/entry.ts")).not.toBe(built);
  });
});
