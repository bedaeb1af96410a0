/**
 * Compiles a route's request validators from its zod schemas, ahead of time, into plain functions
 * (generated/validators.ts, written by scripts/validators-artefact.ts): a route whose request they cover
 * is served without zod (`openApiRoute` in ./openapi.ts). zod stays the single source: a compiled
 * validator only answers what zod's parse answers for a request it is sure is valid, and `undefined`
 * for any other, which zod then parses, refusing it with its own problems. It knows only what the
 * routes' path and query schemas use where they are plain: objects of strings, enums, literals and
 * numbers, optional or with a default, with length, pattern, integer and range checks (a query's number
 * coerced only from plain digits). A request with any other part or kind of schema is not compiled, and
 * zod validates it as before. zod's internals (`_zod.def` and its checks' defs) are read here and
 * nowhere else: a zod upgrade that changes them fails test/http/request-compiler.test.ts.
 */
import { loadZod, type z } from "../lazy-schema";
import { COMPILED_PARTS } from "./compiled-request";
import type { OpenApiRoute } from "./openapi";

/** Hono's name of each request part the compiler knows, by the definition's. */
const TARGETS: Record<string, string> = Object.fromEntries(COMPILED_PARTS.map(([target, part]) => [part, target]));

interface Def {
  type: string;
  [key: string]: unknown;
}

const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** A validator's statements (each returns `undefined` where the value is not certainly valid), and fresh names. */
class Emitter {
  lines: string[] = [];
  #names = 0;
  name(prefix: string) {
    return `${prefix}${this.#names++}`;
  }
}

/** Emits what checks `input` against `schema`, and answers the expression of its output; `null` where it cannot. */
function emit(schema: unknown, input: string, out: Emitter): string | null {
  const def = defOf(schema);
  switch (def.type) {
    case "object":
      return emitObject(def, input, out);
    case "string":
      return emitString(def, input, out);
    case "enum":
      return emitOneOf(Object.values(def.entries as Record<string, unknown>), input, out);
    case "literal":
      return emitOneOf(def.values as unknown[], input, out);
    case "number":
      return emitNumber(def, input, out);
    case "default":
      return emitDefault(def, input, out);
    default:
      return null;
  }
}

function emitObject(def: Def, input: string, out: Emitter): string | null {
  // A catch-all (strict or passthrough) or a refinement of the whole object is zod's to check.
  if (!onlyKeys(def, ["type", "shape"])) return null;
  out.lines.push(`if (typeof ${input} !== "object" || ${input} === null || Array.isArray(${input})) return undefined;`);
  const result = out.name("o");
  out.lines.push(`const ${result}: Record<string, unknown> = {};`);
  for (const [key, field] of Object.entries(def.shape as Record<string, unknown>)) {
    const name = JSON.stringify(key);
    const value = out.name("v");
    out.lines.push(`const ${value} = (${input} as Record<string, unknown>)[${name}];`);
    const fieldDef = defOf(field);
    if (fieldDef.type !== "optional") {
      const checked = emit(field, value, out);
      if (checked === null) return null;
      out.lines.push(`${result}[${name}] = ${checked};`);
      continue;
    }
    if (!onlyKeys(fieldDef, ["type", "innerType"])) return null;
    // zod applies a default inside an optional to an absent key too: zod's to answer.
    if (defOf(fieldDef.innerType).type === "default") return null;
    // As zod's object: an absent key stays absent, a key present as undefined is kept so.
    const start = out.lines.length;
    const checked = emit(fieldDef.innerType, value, out);
    if (checked === null) return null;
    const inner = out.lines.splice(start);
    out.lines.push(
      `if (${value} === undefined) { if (${name} in ${input}) ${result}[${name}] = undefined; } else {`,
      ...inner.map((line) => `  ${line}`),
      `  ${result}[${name}] = ${checked};`,
      "}",
    );
  }
  return result;
}

function emitString(def: Def, input: string, out: Emitter): string | null {
  // A coercion, a format (e-mail, date-time…) or a transform is zod's to apply.
  if (!onlyKeys(def, ["type", "checks", "error"])) return null;
  const refused = [`typeof ${input} !== "string"`];
  for (const check of (def.checks as unknown[] | undefined) ?? []) {
    const c = (check as { _zod: { def: { check: string; [key: string]: unknown } } })._zod.def;
    if (c.check === "min_length") refused.push(`${input}.length < ${Number(c.minimum)}`);
    else if (c.check === "max_length") refused.push(`${input}.length > ${Number(c.maximum)}`);
    else if (c.check === "length_equals") refused.push(`${input}.length !== ${Number(c.length)}`);
    else if (c.check === "string_format" && c.format === "regex" && c.pattern instanceof RegExp) {
      refused.push(`!/${c.pattern.source}/${c.pattern.flags}.test(${input})`);
    } else return null;
  }
  out.lines.push(`if (${refused.join(" || ")}) return undefined;`);
  return input;
}

/** Numbers; coerced ones (a query's) only from plain decimal digits, whose `Number()` is exact. */
function emitNumber(def: Def, input: string, out: Emitter): string | null {
  if (!onlyKeys(def, ["type", "coerce", "checks", "error"])) return null;
  const number = out.name("n");
  if (def.coerce === true) {
    out.lines.push(`if (typeof ${input} !== "string" || !/^(?:0|[1-9][0-9]{0,14})$/.test(${input})) return undefined;`);
    out.lines.push(`const ${number} = Number(${input});`);
  } else {
    out.lines.push(`if (typeof ${input} !== "number" || !Number.isFinite(${input})) return undefined;`);
    out.lines.push(`const ${number} = ${input};`);
  }
  const refused: string[] = [];
  for (const check of (def.checks as unknown[] | undefined) ?? []) {
    const c = (check as { _zod: { def: { check: string; [key: string]: unknown } } })._zod.def;
    const bound = Number(c.value);
    if (!Number.isFinite(bound) && c.check !== "number_format") return null;
    if (c.check === "number_format" && c.format === "safeint") refused.push(`!Number.isSafeInteger(${number})`);
    else if (c.check === "greater_than") refused.push(`${number} ${c.inclusive ? "<" : "<="} ${bound}`);
    else if (c.check === "less_than") refused.push(`${number} ${c.inclusive ? ">" : ">="} ${bound}`);
    else return null;
  }
  if (refused.length > 0) out.lines.push(`if (${refused.join(" || ")}) return undefined;`);
  return number;
}

/**
 * A default: zod answers it for `undefined` (an absent key included) without checking it. Written into
 * the validator as it reads at build time, so a route's default must be a literal (a function's value
 * would be fixed at build time).
 */
function emitDefault(def: Def, input: string, out: Emitter): string | null {
  if (!onlyKeys(def, ["type", "innerType", "defaultValue"])) return null;
  const value = def.defaultValue;
  if (
    !["string", "number", "boolean"].includes(typeof value) ||
    (typeof value === "number" && (!Number.isFinite(value) || Object.is(value, -0)))
  ) {
    return null;
  }
  const result = out.name("d");
  out.lines.push(`let ${result}: unknown = ${JSON.stringify(value)};`);
  const start = out.lines.length;
  const checked = emit(def.innerType, input, out);
  if (checked === null) return null;
  const inner = out.lines.splice(start);
  out.lines.push(
    `if (${input} !== undefined) {`,
    ...inner.map((line) => `  ${line}`),
    `  ${result} = ${checked};`,
    "}",
  );
  return result;
}

function emitOneOf(values: unknown[], input: string, out: Emitter): string | null {
  if (!values.every((value) => typeof value === "string")) return null;
  out.lines.push(`if (!${JSON.stringify(values)}.includes(${input} as string)) return undefined;`);
  return input;
}

const onlyKeys = (def: Def, allowed: string[]) => Object.keys(def).every((key) => allowed.includes(key));

/** The validator's source, `(value: unknown): unknown => …`; `null` where the schema is not one the compiler knows. */
export function compileValidator(schema: z.ZodType): string | null {
  const out = new Emitter();
  const result = emit(schema, "value", out);
  if (result === null) return null;
  return ["(value: unknown): unknown => {", ...out.lines.map((line) => `  ${line}`), `  return ${result};`, "}"].join(
    "\n",
  );
}

/** Each part's validator source, by Hono's name for it; `null` where the request has a part the compiler does not cover. */
async function compileRequest(route: OpenApiRoute): Promise<Record<string, string> | null> {
  await loadZod();
  const request = route.definition.request?.() ?? {};
  const compiled: Record<string, string> = {};
  for (const [part, schema] of Object.entries(request)) {
    const target = TARGETS[part];
    const source = target && schema ? compileValidator(schema as z.ZodType) : null;
    if (source === null) return null;
    compiled[target] = source;
  }
  return compiled;
}

/** generated/validators.ts: every route whose whole request compiles, by operation id. */
export async function validatorsModule(routes: readonly OpenApiRoute[]): Promise<string> {
  const entries: string[] = [];
  for (const route of routes) {
    const compiled = await compileRequest(route);
    if (!compiled || !route.definition.operationId) continue;
    const parts = Object.entries(compiled).map(
      ([target, source]) => `    ${target}: ${source.replaceAll("\n", "\n    ")},`,
    );
    entries.push(
      ...(parts.length > 0
        ? [`  ${route.definition.operationId}: {`, ...parts, "  },"]
        : [`  ${route.definition.operationId}: {},`]),
    );
  }
  return [
    "// Written by scripts/validators-artefact.ts from the routes' zod schemas (src/http/request-compiler.ts): do not edit.",
    'import type { CompiledRequest } from "../src/http/compiled-request";',
    "",
    "/** The compiled validators of each route whose request the compiler covers, by operation id. */",
    "export const COMPILED_REQUESTS: Record<string, CompiledRequest> = {",
    ...entries,
    "};",
    "",
  ].join("\n");
}
