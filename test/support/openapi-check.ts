/**
 * Every response the tests receive is checked against the OpenAPI document (the one GET /openapi.json
 * serves): its status must be declared by its operation, its media type too, its body must validate
 * against the declared schema (JSON Schema 2020-12, formats included), and every header the document
 * says is always present must be there and valid. So the document can never drift from the code.
 */
import { Validator } from "@cfworker/json-schema";
import { inject } from "vitest";

interface Operation {
  responses: Record<string, Declared>;
}
interface Declared {
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: object }>;
  content?: Record<string, { schema: object }>;
}
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { headers: Record<string, { required?: boolean; schema: object }> };
};

const BASE = "https://api.test/openapi.json";
/** Built once per run, not in every file's runtime (test/support/openapi-document.ts). */
const documentText = inject("openApiDocument");
/** Without its examples: the dereferencer would read their `id` properties as schema ids. */
const doc = JSON.parse(documentText, (key, value) =>
  key === "example" || key === "examples" ? undefined : value,
) as Doc;
const pointerSegment = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");

const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    method: method.toUpperCase(),
    path,
    pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
    pointer: `#/paths/${pointerSegment(path)}/${method}`,
    operation,
  })),
);

const validators = new Map<string, Validator>();

function validatorAt(pointer: string): Validator {
  let validator = validators.get(pointer);
  if (!validator) {
    validator = new Validator({ $ref: `${BASE}${pointer}` }, "2020-12", false);
    validator.addSchema(doc as never, BASE);
    validators.set(pointer, validator);
  }
  return validator;
}

function check(pointer: string, value: unknown, what: string): string[] {
  const result = validatorAt(pointer).validate(value);
  return result.valid
    ? []
    : [
        `${what}: ${result.errors
          .slice(-4)
          .map((e) => `${e.instanceLocation} ${e.error}`)
          .join("; ")}`,
      ];
}

/** The problems of a response against the document; an answer outside the partner API (pages, /docs) has none. */
export async function responseProblems(method: string, url: string, res: Response): Promise<string[]> {
  const { pathname } = new URL(url);
  const found = operations.find((o) => o.method === method && o.pattern.test(pathname));
  if (!found) return [];
  const at = `${method} ${found.path} → ${res.status}`;
  const status = String(res.status);
  const declared = found.operation.responses[status];
  if (!declared) return [`${at}: the operation does not declare this status`];
  const problems: string[] = [];
  const base = `${found.pointer}/responses/${status}`;

  for (const [name, header] of Object.entries(declared.headers ?? {})) {
    const component = header.$ref ? doc.components.headers[header.$ref.split("/").at(-1)!]! : header;
    const value = res.headers.get(name);
    if (value === null) {
      if (component.required) problems.push(`${at}: required header ${name} is missing`);
      continue;
    }
    const schemaPointer = header.$ref
      ? `${header.$ref.slice(1)}/schema`
      : `${base}/headers/${pointerSegment(name)}/schema`;
    const typed = (component.schema as { type?: string }).type === "integer" ? Number(value) : value;
    problems.push(...check(header.$ref ? `#${schemaPointer}` : schemaPointer, typed, `${at} header ${name}`));
  }

  const text = await res.clone().text();
  const contentType = res.headers.get("Content-Type") ?? "";
  if (!declared.content) {
    if (text !== "") problems.push(`${at}: a body where the document declares none`);
    return problems;
  }
  // Declared with its parameters (`text/plain; charset=utf-8`), or as the bare media type.
  const mediaType = declared.content[contentType] ? contentType : contentType.split(";")[0]!.trim();
  if (!declared.content[mediaType]) return [...problems, `${at}: media type ${mediaType || "(none)"} is not declared`];
  if (mediaType === "application/json") {
    problems.push(...check(`${base}/content/${pointerSegment(mediaType)}/schema`, JSON.parse(text), `${at} body`));
  }
  return problems;
}

/** Fails the test when the response does not match the document. */
export async function expectDocumented(method: string, url: string, res: Response): Promise<void> {
  const problems = await responseProblems(method, url, res);
  if (problems.length > 0) throw new Error(`The response does not match the OpenAPI document:\n${problems.join("\n")}`);
}

/** Every example of the document that does not validate against the schema it illustrates. */
export function exampleProblems(): string[] {
  const full = JSON.parse(documentText) as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  const problems: string[] = [];
  for (const { method, path, pointer } of operations) {
    const operation = full.paths[path]![method.toLowerCase()] as {
      requestBody?: { content: Record<string, { example?: unknown }> };
      responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
    };
    const bodies = [
      ...Object.entries(operation.requestBody?.content ?? {}).map(([type, media]) => ({
        what: `${method} ${path} request body`,
        at: `${pointer}/requestBody/content/${pointerSegment(type)}/schema`,
        media,
        type,
      })),
      ...Object.entries(operation.responses).flatMap(([status, response]) =>
        Object.entries(response.content ?? {}).map(([type, media]) => ({
          what: `${method} ${path} ${status}`,
          at: `${pointer}/responses/${status}/content/${pointerSegment(type)}/schema`,
          media,
          type,
        })),
      ),
    ];
    for (const { what, at, media, type } of bodies) {
      if (type !== "application/json") continue;
      if (media.example === undefined) problems.push(`${what}: no example`);
      else problems.push(...check(at, media.example, `${what} example`));
    }
  }
  return problems;
}
