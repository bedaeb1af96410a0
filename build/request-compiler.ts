/**
 * Compiles a route's request validators from its zod schemas, ahead of time, into plain functions
 * (generated/validators.ts, written by ./artefacts.ts): a route whose request they cover is served
 * without zod (`serveRoute` in src/api/route.ts). zod stays the single source: a compiled
 * validator only answers what zod's parse answers for a request it is sure is valid, and `undefined`
 * for any other, which zod then parses, refusing it with its own problems. It knows the path, query,
 * headers (read by their names in lower case) and JSON body where their schemas are made of: objects,
 * strings (lengths, patterns, the date, date-time and e-mail formats zod checks by a pattern alone, zod's
 * URL check), enums, literals, booleans, numbers (integer and range; a query's coerced only from plain
 * digits), optionals, nullables, defaults, unions, `listOf`'s arrays and `withDefault`'s fields (their
 * registries, LISTS and WITH_DEFAULTS), and the refinements, overwrites and transforms of
 * REQUEST_RULES (src/api/request-rules.ts), which it calls by name. An optional field it does not know makes
 * it unsure only when the field is given; any other schema it does not know leaves the whole request to
 * zod. Today every route's request compiles. zod's internals are read here and nowhere else (./index.ts
 * lists them): a zod upgrade that changes them fails test/build/request-compiler.test.ts.
 */
import { isDeepStrictEqual } from "node:util";
import { LISTS, type OpenApiRoute, WITH_DEFAULTS } from "../src/api";
import { COMPILED_PARTS, type CompiledTarget } from "../src/api/compiled-request";
import { REQUEST_RULES } from "../src/api/request-rules";
import { loadZod, z } from "../src/lazy-schema";

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

/**
 * Whether zod's schema may take undefined as a value of its own (a default, a preprocess…): an optional
 * then runs it on undefined too. Not `listOf`'s: its preprocess hands undefined on to its array, which
 * refuses it, so the optional answers undefined.
 */
const optionalIn = (schema: unknown) =>
  (schema as { _zod: { optin?: string } })._zod.optin === "optional" && !LISTS.has(schema as z.ZodType);

/**
 * Whether zod's schema may answer undefined (an optional…): its object then ignores what it refuses of an
 * absent key.
 */
const optionalOut = (schema: unknown) => (schema as { _zod: { optout?: string } })._zod.optout === "optional";

/** Kinds whose compiled output is never undefined: the value checked, a new object or array, a default. */
const NEVER_UNDEFINED = ["object", "string", "number", "boolean", "enum", "literal", "array", "default"];

/** Whether what the compiled check answers for a valid value may be undefined (a transform's, an optional's…). */
const mayBeUndefined = (schema: unknown) =>
  !NEVER_UNDEFINED.includes(defOf(schema).type) &&
  !LISTS.has(schema as z.ZodType) &&
  !WITH_DEFAULTS.has(schema as z.ZodType);

/** A validator's statements (each returns UNSURE where the value is not certainly valid), and fresh names. */
class Emitter {
  lines: string[] = [];
  /** How often the validator may be unsure of a valid value: a coerced number, a field it does not know. */
  unsure = 0;
  #names = 0;
  name(prefix: string) {
    return `${prefix}${this.#names++}`;
  }
  /** The rule `fn` as the validator calls it, by its name in REQUEST_RULES; `null` for a function not there. */
  rule(fn: unknown): string | null {
    const name = Object.entries(REQUEST_RULES).find(([, rule]) => rule === fn)?.[0];
    return name ? `REQUEST_RULES.${name}` : null;
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
    case "boolean":
      if (!onlyKeys(def, ["type", "error"])) return null;
      out.lines.push(`if (typeof ${input} !== "boolean") return UNSURE;`);
      return input;
    case "default":
      return emitDefault(def, input, out);
    case "pipe":
      return emitPipe(schema, def, input, out);
    case "array":
      return emitArray(def, input, out);
    case "optional":
      // zod runs an inner schema that takes undefined itself (a default…) even on undefined: zod's.
      return onlyKeys(def, ["type", "innerType"]) && !optionalIn(def.innerType)
        ? emitUnless("undefined", def.innerType, input, out)
        : null;
    case "nullable":
      return onlyKeys(def, ["type", "innerType"]) ? emitUnless("null", def.innerType, input, out) : null;
    case "union":
      return emitUnion(def, input, out);
    default:
      return null;
  }
}

/** `value` as it is where the input is `value` (`undefined` for an optional, `null` for a nullable), else `inner`'s. */
function emitUnless(value: string, inner: unknown, input: string, out: Emitter): string | null {
  const result = out.name("u");
  out.lines.push(`let ${result}: unknown = ${value};`);
  const checked = emitBlock(
    out,
    `if (${input} !== ${value}) {`,
    () => emit(inner, input, out),
    (checked) => [`${result} = ${checked};`],
  );
  return checked === null ? null : result;
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
  // A catch-all (strict or passthrough) or a refinement not in REQUEST_RULES is zod's to check.
  if (!onlyKeys(def, ["type", "shape", "checks"])) return null;
  out.lines.push(`if (typeof ${input} !== "object" || ${input} === null || Array.isArray(${input})) return UNSURE;`);
  const result = out.name("o");
  out.lines.push(`const ${result}: Record<string, unknown> = {};`);
  for (const [key, field] of Object.entries(def.shape as Record<string, unknown>)) {
    const name = JSON.stringify(key);
    const read = JSON.stringify(keyOf(key));
    const value = out.name("v");
    out.lines.push(`const ${value} = (${input} as Record<string, unknown>)[${read}];`);
    const fieldDef = defOf(field);
    if (fieldDef.type !== "optional") {
      // zod ignores what such a field refuses of an absent key, where the compiled check may refuse it.
      if (optionalIn(field) && optionalOut(field)) out.unsure++;
      const checked = emit(field, value, out);
      if (checked === null) return null;
      // As zod's object: a value that comes out undefined (a transform's) is kept only for a key given.
      if (mayBeUndefined(field)) {
        out.lines.push(
          `if (${checked} !== undefined) ${result}[${name}] = ${checked};`,
          `else if (${read} in ${input}) ${result}[${name}] = undefined;`,
        );
      } else out.lines.push(`${result}[${name}] = ${checked};`);
      continue;
    }
    // zod runs an inner schema that takes undefined itself (a default…) on an absent key too: zod's.
    if (!onlyKeys(fieldDef, ["type", "innerType"]) || optionalIn(fieldDef.innerType)) return null;
    // As zod's object: an absent key stays absent, a key present as undefined is kept so.
    const absent = `if (${read} in ${input}) ${result}[${name}] = undefined;`;
    const checked = emitBlock(
      out,
      `if (${value} === undefined) { ${absent} } else {`,
      () => emit(fieldDef.innerType, value, out),
      (checked) => [`${result}[${name}] = ${checked};`],
    );
    // A field the compiler does not know: given, it is zod's to read.
    if (checked === null) {
      out.unsure++;
      out.lines.push(`if (${value} !== undefined) return UNSURE;`, absent);
    }
  }
  // Refinements of the whole object, with what it came out as.
  for (const check of ((def.checks as unknown[] | undefined) ?? []).map(checkDefOf)) {
    const rule = check.check === "custom" ? out.rule(check.fn) : null;
    if (rule === null) return null;
    out.lines.push(`if (!${rule}(${result} as never)) return UNSURE;`);
  }
  return result;
}

/** Formats zod checks by their pattern alone (their schemas add no check of their own). */
const PATTERN_FORMATS = ["regex", "date", "datetime", "email"];

/**
 * A string and its checks, in zod's order (the format first): lengths, patterns, a URL as zod parses
 * it, and the refinements and overwrites (trimming) of REQUEST_RULES, each on the value as the checks
 * before it left it.
 */
function emitString(def: Def, input: string, out: Emitter): string | null {
  // A coercion or another format is zod's to apply.
  const format = def.check === "string_format" ? [def as unknown as CheckDef] : [];
  const allowed = ["type", "checks", "error", ...(format.length > 0 ? ["check", "format", "pattern", "abort"] : [])];
  if (def.format === "datetime") allowed.push("offset", "local", "precision");
  if (def.format === "url") allowed.push("protocol", "hostname");
  if (!onlyKeys(def, allowed)) return null;
  let value = input;
  let refused = [`typeof ${input} !== "string"`];
  const flush = () => {
    if (refused.length > 0) out.lines.push(`if (${refused.join(" || ")}) return UNSURE;`);
    refused = [];
  };
  for (const check of [...format, ...((def.checks as unknown[] | undefined) ?? []).map(checkDefOf)]) {
    const length = lengthCheck(check, value);
    if (length) refused.push(length);
    else if (check.check === "string_format" && PATTERN_FORMATS.includes(String(check.format))) {
      if (!(check.pattern instanceof RegExp)) return null;
      refused.push(`!/${check.pattern.source}/${check.pattern.flags}.test(${value})`);
    } else if (check.check === "string_format" && check.format === "url") {
      // A normalized URL (zod answers its href) is zod's.
      if (check.normalize) return null;
      flush();
      value = emitUrl(check, value, out);
    } else if (check.check === "custom" || check.check === "overwrite") {
      const rule = out.rule(check.check === "custom" ? check.fn : check.tx);
      if (rule === null) return null;
      if (check.check === "custom") refused.push(`!${rule}(${value})`);
      else {
        flush();
        const next = out.name("t");
        out.lines.push(`const ${next} = ${rule}(${value});`);
        value = next;
      }
    } else return null;
  }
  flush();
  return value;
}

/**
 * zod's URL check (its `$ZodURL`): the trimmed text must parse as a URL, its protocol and hostname
 * match their patterns, and an http(s) protocol pattern asks for `://` too; it answers the trimmed text.
 */
function emitUrl(check: CheckDef, input: string, out: Emitter): string {
  const pattern = (regex: unknown) => (regex instanceof RegExp ? `/${regex.source}/${regex.flags}` : null);
  const result = out.name("url");
  const trimmed = out.name("t");
  const parsed = out.name("p");
  const lines = [`const ${trimmed} = ${input}.trim();`];
  if (check.protocol instanceof RegExp && check.protocol.source === z.regexes.httpProtocol.source) {
    lines.push(`if (!/^https?:\\/\\//i.test(${trimmed})) return UNSURE;`);
  }
  const hostname = pattern(check.hostname);
  const protocol = pattern(check.protocol);
  lines.push(hostname || protocol ? `const ${parsed} = new URL(${trimmed});` : `new URL(${trimmed});`);
  if (hostname) lines.push(`if (!${hostname}.test(${parsed}.hostname)) return UNSURE;`);
  if (protocol) {
    lines.push(
      `if (!${protocol}.test(${parsed}.protocol.endsWith(":") ? ${parsed}.protocol.slice(0, -1) : ${parsed}.protocol)) return UNSURE;`,
    );
  }
  out.lines.push(
    `let ${result} = "";`,
    "try {",
    ...lines.map((line) => `  ${line}`),
    `  ${result} = ${trimmed};`,
    "} catch {",
    "  return UNSURE;",
    "}",
  );
  return result;
}

/** The refusal a string's or an array's length check makes; `null` for another check. */
function lengthCheck(c: CheckDef, input: string): string | null {
  if (c.check === "min_length") return `${input}.length < ${Number(c.minimum)}`;
  if (c.check === "max_length") return `${input}.length > ${Number(c.maximum)}`;
  if (c.check === "length_equals") return `${input}.length !== ${Number(c.length)}`;
  return null;
}

/**
 * A pipe the compiler knows: `listOf`'s array (LISTS; its preprocess refuses an array past the limit
 * before zod walks it, which the array's own checks repeat, as the compiled check does before the
 * elements), `withDefault`'s field (WITH_DEFAULTS), a schema into a transform of REQUEST_RULES, or
 * one of them into a schema (a preprocess).
 */
function emitPipe(schema: unknown, def: Def, input: string, out: Emitter): string | null {
  if (!onlyKeys(def, ["type", "in", "out"])) return null;
  if (LISTS.has(schema as z.ZodType)) return emit(def.out, input, out);
  if (WITH_DEFAULTS.has(schema as z.ZodType)) {
    // Its optional runs an inner schema that takes undefined itself on undefined too: zod's.
    const inner = defOf(def.in);
    if (inner.type !== "optional" || !onlyKeys(inner, ["type", "innerType"]) || optionalIn(inner.innerType)) {
      return null;
    }
    // Its transform is `v ?? value`: null from the schema reads as the default too.
    return emitDefaulted(WITH_DEFAULTS.get(schema as z.ZodType), inner.innerType, input, out, "null");
  }
  const ruleOf = (part: unknown) => {
    const transform = defOf(part);
    return transform.type === "transform" && onlyKeys(transform, ["type", "transform"])
      ? out.rule(transform.transform)
      : null;
  };
  // A preprocess: the rule, then the schema.
  const before = ruleOf(def.in);
  if (before !== null) {
    const prepared = out.name("r");
    out.lines.push(`const ${prepared} = ${before}(${input} as never);`);
    return emit(def.out, prepared, out);
  }
  // A transform: the schema, then the rule.
  const after = ruleOf(def.out);
  if (after === null) return null;
  const checked = emit(def.in, input, out);
  if (checked === null) return null;
  const result = out.name("r");
  out.lines.push(`const ${result} = ${after}(${checked} as never);`);
  return result;
}

/**
 * A union: each option in turn, the first that takes the value answers. An option before the last must
 * be one the compiled check is always sure of, or a value it is unsure of could be taken by a later one.
 */
function emitUnion(def: Def, input: string, out: Emitter): string | null {
  if (!onlyKeys(def, ["type", "options"])) return null;
  const options = def.options as unknown[];
  const result = out.name("un");
  out.lines.push(`let ${result}: unknown;`);
  let depth = 0;
  for (const [i, option] of options.entries()) {
    const unsure = out.unsure;
    const fn = out.name("option");
    const checked = emitBlock(
      out,
      `const ${fn} = ((value: unknown): unknown => {`,
      () => emit(option, "value", out),
      (checked) => [`return ${checked};`],
    );
    if (checked === null || (i < options.length - 1 && out.unsure > unsure)) return null;
    out.lines[out.lines.length - 1] = `})(${input});`;
    out.lines.push(`if (${fn} !== UNSURE) ${result} = ${fn};`);
    if (i < options.length - 1) {
      out.lines.push("else {");
      depth++;
    }
  }
  out.lines.push(`else return UNSURE;${"}".repeat(depth)}`.replace(";}", "; }"));
  return result;
}

function emitArray(def: Def, input: string, out: Emitter): string | null {
  if (!onlyKeys(def, ["type", "element", "checks", "error"])) return null;
  const refused = [`!Array.isArray(${input})`];
  for (const check of ((def.checks as unknown[] | undefined) ?? []).map(checkDefOf)) {
    const length = lengthCheck(check, input);
    if (length === null) return null;
    refused.push(length);
  }
  out.lines.push(`if (${refused.join(" || ")}) return UNSURE;`);
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
    // Only plain digits: zod reads the rest.
    out.unsure++;
    out.lines.push(`if (typeof ${input} !== "string" || !/^(?:0|[1-9][0-9]{0,14})$/.test(${input})) return UNSURE;`);
    out.lines.push(`const ${number} = Number(${input});`);
  } else {
    out.lines.push(`if (typeof ${input} !== "number" || !Number.isFinite(${input})) return UNSURE;`);
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
  if (refused.length > 0) out.lines.push(`if (${refused.join(" || ")}) return UNSURE;`);
  return number;
}

/**
 * A default: zod answers it for `undefined` (an absent key included) without checking it. Written into
 * the validator as it reads at build time, so a route's default must be a literal (a function's value
 * would be fixed at build time).
 */
function emitDefault(def: Def, input: string, out: Emitter): string | null {
  if (!onlyKeys(def, ["type", "innerType", "defaultValue"])) return null;
  return emitDefaulted(def.defaultValue, def.innerType, input, out);
}

/** `value` where the input is undefined, else `inner`'s: a literal that JSON writes exactly (a list, a number…). */
function emitDefaulted(value: unknown, inner: unknown, input: string, out: Emitter, alsoFor?: "null"): string | null {
  const literal = JSON.stringify(value);
  if (literal === undefined || Object.is(value, -0) || !isDeepStrictEqual(JSON.parse(literal), value)) return null;
  const result = out.name("d");
  out.lines.push(`let ${result}: unknown = ${literal};`);
  const checked = emitBlock(
    out,
    `if (${input} !== undefined) {`,
    () => emit(inner, input, out),
    // As zod's default: what comes out undefined (or, `alsoFor`, null) is the default as well.
    (checked) => [
      mayBeUndefined(inner)
        ? `if (${checked} !== undefined${alsoFor ? ` && ${checked} !== ${alsoFor}` : ""}) ${result} = ${checked};`
        : `${result} = ${checked};`,
    ],
  );
  return checked === null ? null : result;
}

function emitOneOf(values: unknown[], input: string, out: Emitter): string | null {
  if (!values.every((value) => typeof value === "string")) return null;
  out.lines.push(`if (!${JSON.stringify(values)}.includes(${input} as string)) return UNSURE;`);
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
    "// Written by build/artefacts.ts from the routes' zod schemas (build/request-compiler.ts): do not edit.",
    ...(entries.some((line) => line.includes("REQUEST_RULES."))
      ? ['import { REQUEST_RULES } from "../src/api/request-rules";']
      : []),
    'import { type CompiledRequest, UNSURE } from "../src/api/compiled-request";',
    "",
    "/** The compiled validators of each route whose request the compiler covers, by operation id. */",
    "export const COMPILED_REQUESTS: Record<string, CompiledRequest> = {",
    ...entries,
    "};",
    "",
  ].join("\n");
}
