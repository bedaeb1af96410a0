/**
 * Skip Pay's document as their SDK reads a body (test/skippay/README.md): the oracle of the SKIP_PAY wire
 * profile. Their generated Java models refuse a field their schema does not define, a required field
 * absent, a value outside an enum and JSON null for a required string (even one the document calls
 * nullable); their document says none of it (no `additionalProperties` anywhere). So its schemas are made
 * strict here, as their generator flattens them: each `allOf` one object with the union of its parts'
 * properties and required names, every object closed, `nullable` a type union except for required
 * strings. Every body checked is tallied, so a test can say how many it checked.
 */
import { Validator } from "@cfworker/json-schema";
import { parse } from "yaml";
import text from "../skippay/openapi.yaml?raw";

type Schema = Record<string, unknown> & {
  $ref?: string;
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  type?: string | string[];
  enum?: unknown[];
  nullable?: boolean;
  format?: string;
};

interface Document {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema: Schema }> }> }>
  >;
  components: { schemas: Record<string, Schema & { example?: unknown }> };
}

/** Their document as they publish it, examples included (their request samples). */
export const SKIP_PAY_DOCUMENT = parse(text) as Document;

function strictSchemas(schemas: Record<string, Schema>): Record<string, Schema> {
  const named = (ref: string) => schemas[ref.split("/").at(-1)!]!;
  const isObject = (s: Schema) => s.type === "object" || s.properties !== undefined || s.allOf !== undefined;

  /** `allOf` as their generator reads it: one class with every part's properties and required names. */
  function flatten(schema: Schema): Schema {
    if (!schema.allOf) return schema;
    const parts = schema.allOf.map((part) => (part.$ref ? named(part.$ref) : part));
    // `type: {allOf: [$ref DocumentSerializer]}`: a reference to an enum, not an object.
    if (parts.length === 1 && !isObject(parts[0]!)) return { $ref: schema.allOf[0]!.$ref! };
    const flat: Schema = { type: "object", properties: {}, required: [] };
    for (const part of parts.map(flatten)) {
      Object.assign(flat.properties!, part.properties ?? {});
      flat.required!.push(...(part.required ?? []));
    }
    return flat;
  }

  function strict(schema: Schema, required: boolean): Schema {
    const s = { ...flatten(schema) };
    if (s.properties) {
      const names = s.required ?? [];
      s.properties = Object.fromEntries(
        Object.entries(s.properties).map(([name, property]) => [name, strict(property, names.includes(name))]),
      );
      // Their generator drops a required name that is no property (CustomerResponse_allOf requires `type`).
      s.required = [...new Set(names.filter((name) => name in s.properties!))];
      s.type = "object";
      s.additionalProperties = false;
    }
    if (s.items) s.items = strict(s.items, false);
    // Their SDK checks a required string is a JSON primitive: null fails there, whatever `nullable` says.
    if (s.nullable && !(required && s.type === "string" && s.format !== "date")) {
      s.type = [s.type as string, "null"];
      if (s.enum) s.enum = [...s.enum, null];
    }
    delete s.nullable;
    // Not checked by their SDK (a plain string); cfworker's `url` would refuse hosts such as localhost.
    if (s.format === "url" || s.format === "datetime") delete s.format;
    return s;
  }

  const out = Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, strict(schema, false)]));
  // Two `oneOf`s of strings that no value can satisfy strictly (every value matches both branches). Their
  // installable SDK reads the carrier as the enum of DeliveryCarrierDefault, and a file as a string.
  out.DeliveryCarrier = { $ref: "#/components/schemas/DeliveryCarrierDefault" };
  out.FileRequest = { type: "string" };
  return out;
}

const BASE = "https://skippay.invalid/openapi.json";
/** Without examples: the dereferencer would read their `id` properties as schema ids. */
const schemas = strictSchemas(
  (parse(text, (key, value) => (key === "example" || key === "examples" ? undefined : value)) as Document).components
    .schemas,
);
const validators = new Map<string, Validator>();

/** Why `body` is not a valid `schema` of theirs (nothing when it is). */
export function skipPayProblems(schema: string, body: unknown): string[] {
  if (!schemas[schema]) throw new Error(`Skip Pay's document has no schema ${schema}`);
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator({ $ref: `${BASE}#/components/schemas/${schema}` }, "2020-12", false);
    validator.addSchema({ components: { schemas } } as never, BASE);
    validators.set(schema, validator);
  }
  const result = validator.validate(body);
  // The leaves say why; the $ref, properties and items entries above them only say where.
  const leaves = result.errors.filter((e) => !["$ref", "properties", "items", "allOf"].includes(e.keyword));
  return (leaves.length > 0 ? leaves : result.errors).map((e) => `${e.instanceLocation} ${e.error}`);
}

/** Every body checked against their schemas in the running file: what it was and which schema. */
export const checked: { what: string; schema: string }[] = [];

/** Fails unless `body` is a valid `schema` of theirs; tallies it. */
export function expectSkipPayBody(schema: string, body: unknown, what: string): void {
  const problems = skipPayProblems(schema, body);
  if (problems.length > 0) throw new Error(`${what} is no valid ${schema} of Skip Pay's:\n${problems.join("\n")}`);
  checked.push({ what, schema });
}

const operations = Object.entries(SKIP_PAY_DOCUMENT.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    method: method.toUpperCase(),
    pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
    path,
    responses: operation.responses ?? {},
  })),
);

/**
 * Checks an answer to a SKIP_PAY partner's request: an operation of theirs answers the schema their
 * document declares for the status (any error their ErrorsResponse, declared or not: their client parses
 * every error body with it); an operation only we have answers as our document says, its errors theirs.
 * (An answer given before the partner is known, without a valid token, is ours: check it as ours.)
 */
export async function expectSkipPayAnswer(method: string, url: string, res: Response): Promise<void> {
  const { pathname } = new URL(url);
  const theirs = operations.find((o) => o.method === method && o.pattern.test(pathname));
  const what = `${method} ${pathname} → ${res.status}`;
  if (!theirs && res.status < 400) {
    // Loaded here: the Node tests of the wire have no OpenAPI document of ours to check against.
    const { expectDocumented } = await import("./openapi-check");
    return expectDocumented(method, url, res);
  }
  const declared = theirs?.responses[String(res.status)]?.content;
  const schema = declared
    ? Object.values(declared)[0]!.schema.$ref!.split("/").at(-1)!
    : res.status >= 400
      ? "ErrorsResponse"
      : undefined;
  if (!schema) throw new Error(`${what}: Skip Pay's document declares no such answer`);
  expectSkipPayBody(schema, await res.clone().json(), what);
}
