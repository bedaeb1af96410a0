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
    // What a coerced number may be given: digits, and what Number() reads as well or otherwise.
    fc.constantFrom(
      "0",
      "1",
      "20",
      "100",
      "101",
      "020",
      "-1",
      "-0",
      "1e2",
      "1.0",
      " 5",
      "5 ",
      "0x10",
      "Infinity",
      "NaN",
    ),
    fc.nat(200).map(String),
    fc.oneof(fc.integer(), fc.double()),
    fc.string({ maxLength: 70 }),
    fc.string({ unit: "binary", maxLength: 70 }),
    fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  );

/** Requests of any shape, and valid ones with a key or two changed, where a wrong bound or check shows. */
const inputOf = (keys: readonly string[], valid: readonly unknown[]) => {
  const value = fieldValue(valid.flatMap((v) => Object.values(v as object)));
  const key = fc.constantFrom(...keys, "other", "toString", "constructor");
  return fc.oneof(
    fc.dictionary(key, value, { maxKeys: 5 }),
    value,
    ...(valid.length > 0
      ? [
          fc
            .tuple(fc.constantFrom(...valid), fc.dictionary(key, value, { minKeys: 1, maxKeys: 2 }))
            .map(([sample, changed]) => ({ ...(sample as object), ...changed })),
        ]
      : []),
  );
};

/** zod's answer as the compiled validator gives it: the parsed value, or undefined where zod refuses. */
const zodAnswer = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? result.data : undefined;
};

/**
 * Holds the compiled validator to zod's answer on `runs` generated inputs and on `valid` ones, which it
 * must be sure of. Where it is not `exact`, it may also be unsure (answer `undefined`) of a request zod
 * accepts: a coerced number is compiled from plain digits only, and zod reads the rest.
 */
function agreesWithZod(
  schema: z.ZodType,
  check: (value: unknown) => unknown,
  valid: readonly unknown[],
  { runs = 300, exact = true } = {},
) {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  for (const value of valid) {
    expect(zodAnswer(schema, value)).toBeDefined();
    expect(check(value)).toStrictEqual(zodAnswer(schema, value));
  }
  fc.assert(
    fc.property(inputOf(Object.keys(shape), valid), (value) => {
      const answer = check(value);
      if (exact || answer !== undefined) expect(answer).toStrictEqual(zodAnswer(schema, value));
    }),
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

  it("cover the GETs of an application, a document and the lists, and no request with a body or headers", () => {
    expect(Object.keys(COMPILED_REQUESTS.getApplication ?? {})).toEqual(["param"]);
    expect(Object.keys(COMPILED_REQUESTS.downloadDocument ?? {})).toEqual(["param"]);
    expect(Object.keys(COMPILED_REQUESTS.listNotifications ?? {})).toEqual(["query"]);
    expect(Object.keys(COMPILED_REQUESTS.listApplicationNotifications ?? {})).toEqual(["param", "query"]);
    expect(Object.keys(COMPILED_REQUESTS.listApplications ?? {})).toEqual(["query"]);
    expect(Object.keys(COMPILED_REQUESTS.listRefunds ?? {})).toEqual(["param", "query"]);
    for (const route of routes) {
      const parts = Object.keys(route.definition.request?.() ?? {});
      if (parts.includes("body") || parts.includes("headers")) {
        expect(COMPILED_REQUESTS[route.definition.operationId!], route.definition.operationId).toBeUndefined();
      }
    }
  });

  it("answer for every compiled route what zod's parse answers, valid or not", () => {
    const id = "01JD3Z7Q9K4M2N8P5R6S7T8V9W";
    const params = [{ applicationId: id }];
    const query = [{}, { limit: "1", after: id, sort: "-id", filter: "state|eq|READY" }, { limit: "100", before: id }];
    const samples: Record<string, { params?: unknown[]; query?: unknown[] }> = {
      getApplication: { params },
      downloadDocument: { params: [{ applicationId: id, documentId: "01JD3Z7Q9K4M2N8P5R6S7T8V9X" }] },
      listNotifications: { query },
      listApplicationNotifications: { params, query },
      listApplications: { query },
      listRefunds: { params, query },
    };
    for (const route of routes) {
      const compiled: CompiledRequest | undefined = COMPILED_REQUESTS[route.definition.operationId!];
      for (const [target, part] of COMPILED_PARTS) {
        const check = compiled?.[target];
        if (!check) continue;
        // A list's query holds its limit, a coerced number.
        agreesWithZod(
          route.definition.request!()[part] as z.ZodType,
          check,
          samples[route.definition.operationId!]?.[part] ?? [],
          {
            exact: part !== "query",
          },
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
    agreesWithZod(schema, check, valid, { runs: 1000 });
    expect(check(valid[1])).toStrictEqual({ id: "abcdefgh", code: "abc", state: "CLOSED", kind: "B", note: "hi" });
    expect(check({ ...valid[0], code: "ab1" })).toBeUndefined();
  });

  it("checks numbers (a query's coerced from its digits) and defaults exactly as zod", () => {
    const schema = z.object({
      limit: z.coerce.number().int().min(1).max(100).default(20),
      page: z.coerce.number().int().gt(0).lt(1000).optional(),
      ratio: z.number().gte(-1.5).lte(1.5),
      count: z.number().int().positive().default(3),
      label: z.string().max(3).default("all"),
    });
    const check = evaluate(compileValidator(schema)!);
    const valid = [
      { ratio: 0 },
      { limit: "100", page: "999", ratio: -1.5, count: 7, label: "abc" },
      { limit: "1", page: undefined, ratio: 1.5, count: undefined, label: undefined },
    ];
    agreesWithZod(schema, check, valid, { runs: 2000, exact: false });
    expect(check(valid[0])).toStrictEqual({ limit: 20, ratio: 0, count: 3, label: "all" });
    expect(check({ ratio: 0, limit: "020" })).toBeUndefined(); // zod's to read (it accepts 20)
    expect(check({ ratio: 0, limit: "101" })).toBeUndefined();
  });

  it.each([
    ["a format", z.object({ email: z.email() })],
    ["a coercion", z.object({ limit: z.coerce.string() })],
    ["a transform", z.object({ name: z.string().transform((s) => s.trim()) })],
    ["a refinement of a field", z.object({ name: z.string().refine((s) => s !== "x") })],
    ["a refinement of the object", z.object({ name: z.string() }).refine((o) => o.name !== "x")],
    ["a strict object", z.strictObject({ name: z.string() })],
    ["a number's multiple", z.object({ limit: z.number().multipleOf(5) })],
    ["a 32-bit integer", z.object({ limit: z.int32() })],
    ["an array", z.object({ names: z.array(z.string()) })],
    ["a default that is an object", z.object({ names: z.object({}).default({}) })],
    ["a default of what its schema cannot compile", z.object({ name: z.email().default("a@b.cz") })],
    ["a default inside an optional", z.object({ name: z.string().default("x").optional() })],
    ["an infinite default", z.object({ limit: z.number().default(Number.POSITIVE_INFINITY) })],
    ["a bound that is not a number", z.object({ limit: z.number().max(Number.NaN) })],
  ])("leaves a schema with %s to zod (compiles nothing)", (_, schema) => {
    expect(compileValidator(schema)).toBeNull();
  });
});
