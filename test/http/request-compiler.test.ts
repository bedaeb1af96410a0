import { readFileSync } from "node:fs";
import path from "node:path";
import { transformSync } from "esbuild";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { COMPILED_REQUESTS } from "../../generated/validators";
import { COMPILED_PARTS, type CompiledRequest } from "../../src/http/compiled-request";
import type { OpenApiRoute } from "../../src/http/openapi";
import { compileValidator, validatorsModule } from "../../src/http/request-compiler";
import { loadZod, z } from "../../src/lazy-schema";
import { documentedRoutes } from "../../src/routes/system/openapi";

/** A compiled validator's source, run as the Worker runs it (TypeScript stripped by esbuild, as the build does). */
const evaluate = (source: string) =>
  new Function(`return ${transformSync(source, { loader: "ts" }).code.trim().replace(/;$/, "")}`)() as (
    value: unknown,
  ) => unknown;

/** Values a request part may hold, and some it never does: zod and the compiled validator must agree on all. */
const fieldValue = (samples: readonly unknown[]) =>
  fc.oneof(
    fc.constantFrom(...samples, undefined, null, 0, "", "X".repeat(64), "X".repeat(65), "😀".repeat(32)),
    fc.string({ maxLength: 70 }),
    fc.string({ unit: "binary", maxLength: 70 }),
    fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  );

const inputOf = (keys: readonly string[], samples: readonly unknown[]) =>
  fc.oneof(
    fc.dictionary(fc.constantFrom(...keys, "other", "toString", "constructor"), fieldValue(samples), { maxKeys: 5 }),
    fieldValue(samples),
  );

/** zod's answer as the compiled validator gives it: the parsed value, or undefined where zod refuses. */
const zodAnswer = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? result.data : undefined;
};

/** Holds the compiled validator to zod's answer on `runs` generated inputs and on `valid` ones. */
function agreesWithZod(schema: z.ZodType, check: (value: unknown) => unknown, valid: readonly unknown[], runs = 300) {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  for (const value of valid) expect(check(value)).toStrictEqual(zodAnswer(schema, value));
  fc.assert(
    fc.property(
      inputOf(
        Object.keys(shape),
        valid.flatMap((v) => Object.values(v as object)),
      ),
      (value) => {
        expect(check(value)).toStrictEqual(zodAnswer(schema, value));
      },
    ),
    { numRuns: runs },
  );
}

await loadZod();

describe("the request validators compiled ahead of time", () => {
  let routes: OpenApiRoute[];
  beforeAll(async () => {
    routes = await documentedRoutes();
  });

  it("are, as the build wrote them, what the code compiles from the routes' schemas", async () => {
    const written = readFileSync(path.join(import.meta.dirname, "../../generated/validators.ts"), "utf8");
    expect(written).toBe(await validatorsModule(routes));
  });

  it("cover the GET of an application and of a document, and no request with a body or headers", () => {
    expect(Object.keys(COMPILED_REQUESTS.getApplication ?? {})).toEqual(["param"]);
    expect(Object.keys(COMPILED_REQUESTS.downloadDocument ?? {})).toEqual(["param"]);
    for (const route of routes) {
      const parts = Object.keys(route.definition.request?.() ?? {});
      if (parts.includes("body") || parts.includes("headers")) {
        expect(COMPILED_REQUESTS[route.definition.operationId!], route.definition.operationId).toBeUndefined();
      }
    }
  });

  it("answer for every compiled route exactly what zod's parse answers, valid or not", () => {
    const samples: Record<string, unknown[]> = {
      getApplication: [{ applicationId: "01JD3Z7Q9K4M2N8P5R6S7T8V9W" }],
      downloadDocument: [{ applicationId: "01JD3Z7Q9K4M2N8P5R6S7T8V9W", documentId: "01JD3Z7Q9K4M2N8P5R6S7T8V9X" }],
    };
    for (const route of routes) {
      const compiled: CompiledRequest | undefined = COMPILED_REQUESTS[route.definition.operationId!];
      for (const [target, part] of COMPILED_PARTS) {
        const check = compiled?.[target];
        if (!check) continue;
        agreesWithZod(
          route.definition.request!()[part] as z.ZodType,
          check,
          samples[route.definition.operationId!] ?? [],
        );
      }
    }
  });
});

describe("compileValidator", () => {
  it("checks lengths, patterns, enums, literals and optional fields exactly as zod, stripping unknown keys", () => {
    const schema = z.object({
      id: z.string().min(2).max(8),
      code: z
        .string()
        .length(3)
        .regex(/^[a-z]+$/i),
      state: z.enum(["OPEN", "CLOSED"]),
      kind: z.literal(["A", "B"]),
      note: z.string().max(5).optional(),
    });
    const check = evaluate(compileValidator(schema)!);
    const valid = [
      { id: "ab", code: "xYz", state: "OPEN", kind: "A" },
      { id: "abcdefgh", code: "abc", state: "CLOSED", kind: "B", note: "hi", other: 1 },
      { id: "abc", code: "ABC", state: "OPEN", kind: "B", note: undefined },
    ];
    agreesWithZod(schema, check, valid, 1000);
    expect(check(valid[1])).toStrictEqual({ id: "abcdefgh", code: "abc", state: "CLOSED", kind: "B", note: "hi" });
    expect(check({ ...valid[0], code: "ab1" })).toBeUndefined();
  });

  it.each([
    ["a format", z.object({ email: z.email() })],
    ["a coercion", z.object({ limit: z.coerce.string() })],
    ["a transform", z.object({ name: z.string().transform((s) => s.trim()) })],
    ["a refinement of a field", z.object({ name: z.string().refine((s) => s !== "x") })],
    ["a refinement of the object", z.object({ name: z.string() }).refine((o) => o.name !== "x")],
    ["a strict object", z.strictObject({ name: z.string() })],
    ["a number", z.object({ limit: z.number() })],
    ["an array", z.object({ names: z.array(z.string()) })],
    ["a default", z.object({ name: z.string().default("x") })],
  ])("leaves a schema with %s to zod (compiles nothing)", (_, schema) => {
    expect(compileValidator(schema)).toBeNull();
  });
});
