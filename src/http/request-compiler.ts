/**
 * Compiles a route's request validators from its zod schemas, ahead of time, into plain functions
 * (generated/validators.ts, written by scripts/validators-artefact.ts): a route whose request they cover
 * is served without zod (`openApiRoute` in ./openapi.ts). zod stays the single source: a compiled
 * validator only answers what zod's parse answers for a request it is sure is valid, and `undefined`
 * for any other, which zod then parses, refusing it with its own problems. It knows the path, query,
 * headers and JSON body where their schemas are plain: objects, strings (with length, pattern and the
 * date, date-time and e-mail formats zod checks by a pattern alone), enums, literals, numbers (integer
 * and range; a query's coerced only from plain digits), the arrays of `listOf`, optional or with a
 * default. An optional field whose schema it does not know makes it unsure only when the field is given
 * (a send that names its items is zod's to read, a send of everything is not). A request with any other
 * part, or a required field of another kind, is not compiled, and zod validates it as before. zod's
 * internals (`_zod.def` and its checks' defs) are read here and nowhere else: a zod upgrade that changes
 * them fails test/http/request-compiler.test.ts.
 */
import { loadZod, type z } from "../lazy-schema";
import { COMPILED_PARTS, type CompiledTarget } from "./compiled-request";
import { LISTS, type OpenApiRoute } from "./openapi";

/** Hono's name of each request part the compiler knows, by the definition's. */
const TARGETS: Record<string, CompiledTarget | undefined> = Object.fromEntries(
  COMPILED_PARTS.map(([target, part]) => [part, target]),
);

interface Def {
  type: string;
  [key: string]: unknown;
}

const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

interface CheckDef {
  check: string;
  [key: string]: unknown;
}

const checkDefOf = (check: unknown): CheckDef => (check as { _zod: { def: CheckDef } })._zod.def;

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
    case "pipe":
      return emitList(schema, def, input, out);
    case "array":
      return emitArray(def, input, out);
    default:
      return null;
  }
}

/** Emits `emitInner`'s checks inside a block that `open` starts; `null` where it cannot. */
function emitBlock(out: Emitter, open: string, emitInner: () => string | null, close: (checked: string) => string[]) {
  const start = out.lines.length;
  const checked = emitInner();
  if (checked === null) {
    out.lines.splice(start);
    return null;
  }
  const inner = out.lines.splice(start);
  out.lines.push(open, ...[...inner, ...close(checked)].map((line) => `  ${line}`), "}");
  return checked;
}

/**
 * An object; `keyOf` names the key a field is read from (a request's headers arrive with their names in
 * lower case, and @hono/zod-validator gives zod each under the schema's spelling).
 */
function emitObject(def: Def, input: string, out: Emitter, keyOf = (key: string) => key): string | null {
  // A catch-all (strict or passthrough) or a refinement of the whole object is zod's to check.
  if (!onlyKeys(def, ["type", "shape"])) return null;
  out.lines.push(`if (typeof ${input} !== "object" || ${input} === null || Array.isArray(${input})) return undefined;`);
  const result = out.name("o");
  out.lines.push(`const ${result}: Record<string, unknown> = {};`);
  for (const [key, field] of Object.entries(def.shape as Record<string, unknown>)) {
    const name = JSON.stringify(key);
    const read = JSON.stringify(keyOf(key));
    const value = out.name("v");
    out.lines.push(`const ${value} = (${input} as Record<string, unknown>)[${read}];`);
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
    const absent = `if (${read} in ${input}) ${result}[${name}] = undefined;`;
    const checked = emitBlock(
      out,
      `if (${value} === undefined) { ${absent} } else {`,
      () => emit(fieldDef.innerType, value, out),
      (checked) => [`${result}[${name}] = ${checked};`],
    );
    // A field the compiler does not know: given, it is zod's to read.
    if (checked === null) out.lines.push(`if (${value} !== undefined) return undefined;`, absent);
  }
  return result;
}

/** Formats zod checks by their pattern alone (their schemas add no check of their own). */
const PATTERN_FORMATS = ["regex", "date", "datetime", "email"];

function emitString(def: Def, input: string, out: Emitter): string | null {
  // A coercion, a transform or another format (a URL…) is zod's to apply.
  const format = def.check === "string_format" ? [def as unknown as CheckDef] : [];
  const allowed = ["type", "checks", "error", ...(format.length > 0 ? ["check", "format", "pattern", "abort"] : [])];
  if (def.format === "datetime") allowed.push("offset", "local", "precision");
  if (!onlyKeys(def, allowed)) return null;
  const refused = [`typeof ${input} !== "string"`];
  for (const check of [...format, ...((def.checks as unknown[] | undefined) ?? []).map(checkDefOf)]) {
    const length = lengthCheck(check, input);
    if (length) refused.push(length);
    else if (check.check === "string_format" && PATTERN_FORMATS.includes(String(check.format))) {
      if (!(check.pattern instanceof RegExp)) return null;
      refused.push(`!/${check.pattern.source}/${check.pattern.flags}.test(${input})`);
    } else return null;
  }
  out.lines.push(`if (${refused.join(" || ")}) return undefined;`);
  return input;
}

/** The refusal a string's or an array's length check makes; `null` for another check. */
function lengthCheck(c: CheckDef, input: string): string | null {
  if (c.check === "min_length") return `${input}.length < ${Number(c.minimum)}`;
  if (c.check === "max_length") return `${input}.length > ${Number(c.maximum)}`;
  if (c.check === "length_equals") return `${input}.length !== ${Number(c.length)}`;
  return null;
}

/**
 * `listOf`'s array (LISTS holds them): its preprocess refuses an array past the limit before zod walks
 * it, which the array's own checks repeat, as the compiled check does before the elements. Any other
 * pipe is zod's.
 */
function emitList(schema: unknown, def: Def, input: string, out: Emitter): string | null {
  if (!LISTS.has(schema as z.ZodType) || !onlyKeys(def, ["type", "in", "out"])) return null;
  return emit(def.out, input, out);
}

function emitArray(def: Def, input: string, out: Emitter): string | null {
  if (!onlyKeys(def, ["type", "element", "checks", "error"])) return null;
  const refused = [`!Array.isArray(${input})`];
  for (const check of ((def.checks as unknown[] | undefined) ?? []).map(checkDefOf)) {
    const length = lengthCheck(check, input);
    if (length === null) return null;
    refused.push(length);
  }
  out.lines.push(`if (${refused.join(" || ")}) return undefined;`);
  const result = out.name("a");
  const index = out.name("i");
  const element = out.name("e");
  out.lines.push(`const ${result}: unknown[] = [];`);
  const checked = emitBlock(
    out,
    `for (let ${index} = 0; ${index} < ${input}.length; ${index}++) {`,
    () => {
      out.lines.push(`const ${element}: unknown = ${input}[${index}];`);
      return emit(def.element, element, out);
    },
    (checked) => [`${result}.push(${checked});`],
  );
  return checked === null ? null : result;
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
  for (const c of ((def.checks as unknown[] | undefined) ?? []).map(checkDefOf)) {
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
  const checked = emitBlock(
    out,
    `if (${input} !== undefined) {`,
    () => emit(def.innerType, input, out),
    (checked) => [`${result} = ${checked};`],
  );
  return checked === null ? null : result;
}

function emitOneOf(values: unknown[], input: string, out: Emitter): string | null {
  if (!values.every((value) => typeof value === "string")) return null;
  out.lines.push(`if (!${JSON.stringify(values)}.includes(${input} as string)) return undefined;`);
  return input;
}

const onlyKeys = (def: Def, allowed: string[]) => Object.keys(def).every((key) => allowed.includes(key));

/**
 * The validator's source, `(value: unknown): unknown => …`; `null` where the schema is not one the
 * compiler knows. A request's headers (`headers`) are an object read by its keys in lower case.
 */
export function compileValidator(schema: z.ZodType, { headers = false } = {}): string | null {
  const out = new Emitter();
  const def = defOf(schema);
  const result =
    headers && def.type === "object"
      ? emitObject(def, "value", out, (key) => key.toLowerCase())
      : headers
        ? null
        : emit(schema, "value", out);
  if (result === null) return null;
  return ["(value: unknown): unknown => {", ...out.lines.map((line) => `  ${line}`), `  return ${result};`, "}"].join(
    "\n",
  );
}

/** A request body's schema, where it is JSON alone and required (as `jsonBodyOf` declares it); else `null`. */
function jsonSchemaOf(body: unknown): z.ZodType | null {
  const { required, content } = body as { required?: boolean; content?: Record<string, { schema?: z.ZodType }> };
  const mediaTypes = Object.keys(content ?? {});
  if (required !== true || mediaTypes.length !== 1 || mediaTypes[0] !== "application/json") return null;
  return content!["application/json"]!.schema ?? null;
}

/** Each part's validator source, by Hono's name for it; `null` where the request has a part the compiler does not cover. */
async function compileRequest(route: OpenApiRoute): Promise<Partial<Record<CompiledTarget, string>> | null> {
  await loadZod();
  const request = route.definition.request?.() ?? {};
  const compiled: Partial<Record<CompiledTarget, string>> = {};
  for (const [part, given] of Object.entries(request)) {
    const target = TARGETS[part];
    const schema = part === "body" ? jsonSchemaOf(given) : (given as z.ZodType | undefined);
    const source = target && schema ? compileValidator(schema, { headers: target === "header" }) : null;
    if (source === null) return null;
    compiled[target!] = source;
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
