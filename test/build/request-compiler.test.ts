import { transformSync } from "esbuild";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { documentedRoutes } from "../../build/document";
import { compileValidator } from "../../build/request-compiler";
import { COMPILED_REQUESTS } from "../../generated/validators";
import { listOf, type OpenApiRoute, withDefault } from "../../src/api";
import { COMPILED_PARTS, type CompiledRequest, UNSURE } from "../../src/api/compiled-request";
import { REQUEST_RULES } from "../../src/api/request-rules";
import { loadZod, z } from "../../src/lazy-schema";

/** A compiled validator's source, run as the Worker runs it (TypeScript stripped by esbuild, as the build does). */
const evaluate = (source: string) =>
  new Function(
    "REQUEST_RULES",
    "UNSURE",
    `return ${transformSync(source, { loader: "ts" }).code.trim().replace(/;$/, "")}`,
  )(REQUEST_RULES, UNSURE) as (value: unknown) => unknown;

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
    fc.constantFrom("2026-11-23", "2026-02-29", "2028-02-29", "2026-13-01", "2026-11-23T10:15:00+01:00", "a@b.cz"),
    fc.constantFrom(
      "https://a.cz",
      " https://a.cz/x ",
      "http:a.cz",
      "https:/a.cz",
      "ftp://a.cz",
      "mailto:a@b.cz",
      "https://",
      "https://a b.cz",
      "HTTPS://A.CZ",
      "//a.cz",
      " CZ",
      "CZ",
      "XX",
      "PPL",
      "  ",
    ),
    fc.webUrl(),
    fc.boolean(),
    fc.object({ maxDepth: 1, maxKeys: 3 }),
  );

/** A valid sample with the value at one path (each step picks a key or an element by its index) changed. */
const changedDeep = (samples: readonly unknown[], value: fc.Arbitrary<unknown>) =>
  fc
    .tuple(fc.constantFrom(...samples), fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), value)
    .map(([sample, steps, changed]) => {
      const root = structuredClone(sample) as Record<string, unknown>;
      let node: Record<string, unknown> = root;
      for (const [i, step] of steps.entries()) {
        const keys = Object.keys(node);
        if (keys.length === 0) break;
        const key = keys[step % keys.length]!;
        const child = node[key];
        if (i === steps.length - 1 || typeof child !== "object" || child === null) {
          node[key] = changed;
          break;
        }
        node = child as Record<string, unknown>;
      }
      return root;
    });

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
          changedDeep(valid, value),
        ]
      : []),
  );
};

/** zod's answer as the compiled validator gives it: the parsed value, or UNSURE where zod refuses. */
const zodAnswer = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? result.data : UNSURE;
};

/**
 * Holds the compiled validator to zod's answer on `runs` generated inputs and on `valid` ones, which it
 * must be sure of. Where it is not `exact`, it may also be unsure (answer UNSURE) of a request zod
 * accepts: a coerced number is compiled from plain digits only, and zod reads the rest.
 */
function agreesWithZod(
  schema: z.ZodType,
  check: (value: unknown) => unknown,
  valid: readonly unknown[],
  {
    runs = 300,
    exact = true,
    keys = Object.keys((schema as unknown as { shape?: Record<string, unknown> }).shape ?? {}),
  }: { runs?: number; exact?: boolean; keys?: string[] } = {},
) {
  for (const value of valid) {
    expect(zodAnswer(schema, value)).not.toBe(UNSURE);
    expect(check(value)).toStrictEqual(zodAnswer(schema, value));
    // In zod's order too: what the handler stores or answers is written in it.
    expect(JSON.stringify(check(value))).toBe(JSON.stringify(zodAnswer(schema, value)));
  }
  fc.assert(
    fc.property(inputOf(keys, valid), (value) => {
      const answer = check(value);
      if (exact || answer !== UNSURE) expect(answer).toStrictEqual(zodAnswer(schema, value));
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

  it("cover every route's request, its path, query, headers and JSON body", () => {
    expect(Object.keys(COMPILED_REQUESTS.getApplication ?? {})).toEqual(["param"]);
    expect(Object.keys(COMPILED_REQUESTS.downloadDocument ?? {})).toEqual(["param"]);
    expect(Object.keys(COMPILED_REQUESTS.listNotifications ?? {})).toEqual(["query"]);
    expect(Object.keys(COMPILED_REQUESTS.listApplicationNotifications ?? {})).toEqual(["param", "query"]);
    expect(Object.keys(COMPILED_REQUESTS.listApplications ?? {})).toEqual(["query"]);
    expect(Object.keys(COMPILED_REQUESTS.listRefunds ?? {})).toEqual(["param", "query"]);
    for (const operation of ["sendItems", "deliverItems", "cancelItems", "changeOrder", "returnItems"]) {
      expect(Object.keys(COMPILED_REQUESTS[operation] ?? {})).toEqual(["param", "header", "json"]);
    }
    expect(Object.keys(COMPILED_REQUESTS.createApplication ?? {})).toEqual(["header", "json"]);
    // Every route's request compiles: a rule a schema applies is one of REQUEST_RULES.
    expect(routes.filter((route) => !COMPILED_REQUESTS[route.definition.operationId!]).map((r) => r.path)).toEqual([]);
  });

  it("answer for every compiled route what zod's parse answers, valid or not", () => {
    const id = "01JD3Z7Q9K4M2N8P5R6S7T8V9W";
    const params = [{ applicationId: id }];
    const query = [{}, { limit: "1", after: id, sort: "-id", filter: "state|eq|READY" }, { limit: "100", before: id }];
    const samples: Partial<Record<string, Partial<Record<(typeof COMPILED_PARTS)[number][1], unknown[]>>>> = {
      getApplication: { params },
      downloadDocument: { params: [{ applicationId: id, documentId: "01JD3Z7Q9K4M2N8P5R6S7T8V9X" }] },
      listNotifications: { query },
      listApplicationNotifications: { params, query },
      listApplications: { query },
      listRefunds: { params, query },
    };
    let bodies = 0;
    for (const route of routes) {
      const compiled: CompiledRequest | undefined = COMPILED_REQUESTS[route.definition.operationId!];
      const request = route.definition.request?.() ?? {};
      for (const [target, part] of COMPILED_PARTS) {
        const check = compiled?.[target];
        if (!check) continue;
        const given = samples[route.definition.operationId!]?.[part] ?? [];
        if (part === "body") {
          // The body's example in the document, and an empty body (read as `{}`) where it is valid.
          const { schema, example } = request.body!.content["application/json"] as {
            schema: z.ZodType;
            example: unknown;
          };
          bodies++;
          agreesWithZod(schema, check, [example, ...(schema.safeParse({}).success ? [{}] : [])]);
        } else if (part === "headers") {
          // Hono gives the headers with their names in lower case; @hono/zod-validator gives them to zod
          // under the schema's spelling, the compiled validator reads them as they come.
          const schema = request.headers as unknown as z.ZodType & { shape: Record<string, unknown> };
          const names = new Map(Object.keys(schema.shape).map((name) => [name.toLowerCase(), name]));
          const asZodReads = (headers: unknown) =>
            headers !== null && typeof headers === "object" && !Array.isArray(headers)
              ? Object.fromEntries(Object.entries(headers).map(([name, value]) => [names.get(name) ?? name, value]))
              : headers;
          const mapped = z.unknown().transform(asZodReads).pipe(schema);
          agreesWithZod(mapped, check, [{}, { "idempotency-key": "order-1-send" }], { keys: [...names.keys()] });
        } else {
          // A list's query holds its limit, a coerced number.
          agreesWithZod(request[part] as z.ZodType, check, given, { exact: part !== "query" });
        }
      }
    }
    expect(bodies).toBeGreaterThanOrEqual(3);
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
    expect(check({ ...valid[0], code: "ab1" })).toBe(UNSURE);
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
    expect(check({ ratio: 0, limit: "020" })).toBe(UNSURE); // zod's to read (it accepts 20)
    expect(check({ ratio: 0, limit: "101" })).toBe(UNSURE);
  });

  it("checks listOf's arrays, nested objects and the formats zod checks by a pattern exactly as zod", () => {
    const schema = z.object({
      lines: listOf(z.object({ code: z.string().max(3), at: z.iso.date().optional() }), 3, { length: 1 }),
      tags: z
        .array(z.enum(["A", "B"]))
        .max(2)
        .optional(),
      contact: z.object({ email: z.email(), since: z.iso.datetime({ offset: true, local: false }) }).optional(),
    });
    const check = evaluate(compileValidator(schema)!);
    const valid = [
      { lines: [{ code: "abc", at: "2028-02-29" }] },
      { lines: [{ code: "" }, { code: "x" }, { code: "y" }], tags: ["B", "A"] },
      {
        lines: [{ code: "a", other: 1 }],
        contact: { email: "a@b.cz", since: "2026-11-23T10:15:00.5+01:00" },
        other: [1],
      },
    ];
    agreesWithZod(schema, check, valid, { runs: 2000 });
    expect(check({ lines: [] })).toBe(UNSURE); // at least one
    expect(check({ lines: [{ code: "a" }, { code: "b" }, { code: "c" }, { code: "d" }] })).toBe(UNSURE);
    expect(check({ lines: [{ code: "a", at: "2026-02-29" }] })).toBe(UNSURE);
  });

  it("is unsure only where an optional field it does not know is given", () => {
    const schema = z.object({
      name: z.string(),
      code: z
        .string()
        .refine((code) => code !== "x")
        .optional(),
    });
    const check = evaluate(compileValidator(schema)!);
    agreesWithZod(schema, check, [{ name: "a" }], { runs: 1000, exact: false });
    expect(check({ name: "a" })).toStrictEqual({ name: "a" });
    expect(check({ name: "a", code: "y" })).toBe(UNSURE);
    expect(schema.safeParse({ name: "a", code: "y" }).success).toBe(true);
  });

  it("tells a valid value that is undefined from one it is unsure of: a union whose options may answer undefined compiles", () => {
    const schema = z.object({
      u: z.union([z.string().transform(REQUEST_RULES.absentIfNull), z.number()]).optional(),
      v: z.union([
        z.object({ a: z.union([z.number(), z.string().transform(REQUEST_RULES.absentIfNull)]), b: z.string() }),
        z.object({ b: z.string().overwrite(REQUEST_RULES.trimmed) }),
      ]),
    });
    const check = evaluate(compileValidator(schema)!);
    const valid = [{ u: "x", v: { a: 1, b: "b" } }, { u: 2, v: { a: "a", b: " b " } }, { v: { b: " b " } }];
    agreesWithZod(schema, check, valid, { runs: 3000 });
  });

  it("applies REQUEST_RULES, zod's URL check, withDefault, nullish fields and unions exactly as zod", () => {
    const schema = z.object({
      name: z.string().overwrite(REQUEST_RULES.trimmed).min(1).max(5),
      country: z.string().refine(REQUEST_RULES.isCountry).optional(),
      site: z.url({ protocol: /^https?$/ }).max(30),
      link: z.url().optional(),
      kind: withDefault(z.enum(["A", "B"]), "A"),
      tags: withDefault(listOf(z.string(), 2), []),
      agreed: withDefault(z.boolean(), false),
      carrier: z
        .union([z.object({ carrierId: z.string().max(3) }), z.string().max(3).transform(REQUEST_RULES.carrierOf)])
        .nullish()
        .transform(REQUEST_RULES.absentIfNull),
      person: z
        .object({ fullName: z.string().optional(), firstName: z.string().optional(), lastName: z.string().optional() })
        .refine(REQUEST_RULES.hasCustomerName)
        .optional(),
      // A null from the schema reads as withDefault's default too; a null or absent key as zod keeps it.
      label: withDefault(z.string().nullable(), "none"),
      note: z.string().optional().nullable(),
      // A default takes the place of what its schema answers undefined.
      fallback: z.string().nullable().transform(REQUEST_RULES.absentIfNull).default("d"),
    });
    const check = evaluate(compileValidator(schema)!);
    const valid = [
      { name: " ab ", site: "https://a.cz" },
      { name: "x", site: " HTTP://A.CZ/p?q#f ", link: "mailto:a@b.cz", kind: "B", tags: ["t"], agreed: true },
      { name: "x", site: "https://a.cz", country: "CZ", carrier: "PPL", person: { fullName: "J" } },
      { name: "x", site: "https://a.cz", carrier: { carrierId: "PPL" }, person: { firstName: "J", lastName: "N" } },
      { name: "x", site: "https://a.cz", carrier: null, tags: undefined },
      { name: "x", site: "https://a.cz", label: null, note: null },
      { name: "x", site: "https://a.cz", label: "l", note: undefined, fallback: null },
      { name: "x", site: "https://a.cz", fallback: "f" },
    ];
    agreesWithZod(schema, check, valid, { runs: 3000 });
    expect(check(valid[0])).toStrictEqual({
      name: "ab",
      site: "https://a.cz",
      kind: "A",
      tags: [],
      agreed: false,
      label: "none",
      fallback: "d",
    });
    expect(check({ ...valid[0], site: "https:a.cz" })).toBe(UNSURE); // zod asks http(s) for "://"
    expect(check({ ...valid[0], site: "ftp://a.cz" })).toBe(UNSURE);
    expect(check({ ...valid[0], name: "   " })).toBe(UNSURE);
    expect(check({ ...valid[0], person: { firstName: "J" } })).toBe(UNSURE);
    expect(check({ ...valid[0], carrier: "toolong" })).toBe(UNSURE);
  });

  it.each([
    ["a format it does not know", z.object({ url: z.url({ normalize: true }) })],
    ["a coercion", z.object({ limit: z.coerce.string() })],
    ["a transform", z.object({ name: z.string().transform((s) => s.trim()) })],
    ["a refinement of a field", z.object({ name: z.string().refine((s) => s !== "x") })],
    ["a refinement of the object", z.object({ name: z.string() }).refine((o) => o.name !== "x")],
    ["a strict object", z.strictObject({ name: z.string() })],
    ["a number's multiple", z.object({ limit: z.number().multipleOf(5) })],
    ["a 32-bit integer", z.object({ limit: z.int32() })],
    ["an array of what it cannot compile", z.object({ codes: z.array(z.string().refine((c) => c !== "x")) })],
    ["a pipe that is not listOf's", z.object({ names: z.preprocess((v) => v, z.array(z.string())) })],
    ["a default JSON cannot write", z.object({ at: z.date().default(new Date(0)) })],
    [
      "a default of what its schema cannot compile",
      z.object({
        code: z
          .string()
          .refine((c) => c !== "x")
          .default("y"),
      }),
    ],
    ["a transform not in REQUEST_RULES", z.object({ name: z.string().transform((s) => s.trim()) })],
    ["an optional of what takes undefined itself", z.object({ name: z.string().default("x").nullish() })],
    ["a withDefault of what takes undefined itself", z.object({ name: withDefault(z.string().default("a"), "w") })],
    [
      "a union whose first option has a required field zod lets be absent",
      z.object({ u: z.union([z.object({ a: z.string().optional().nullable(), b: z.number() }), z.string()]) }),
    ],
    ["a normalized URL among a string's checks", z.object({ url: z.string().url({ normalize: true }) })],
    [
      "a union whose first option may be unsure",
      z.object({ u: z.union([z.object({ n: z.coerce.number() }), z.string()]) }),
    ],
    ["a default inside an optional", z.object({ name: z.string().default("x").optional() })],
    ["an infinite default", z.object({ limit: z.number().default(Number.POSITIVE_INFINITY) })],
    ["a bound that is not a number", z.object({ limit: z.number().max(Number.NaN) })],
  ])("leaves a schema with %s to zod (compiles nothing)", (_, schema) => {
    expect(compileValidator(schema)).toBeNull();
  });
});
