import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { validator } from "hono/validator";
import type { ConflictCode, InvalidCode, ProblemCode, RefusalCode } from "../domain/result";
import type { HonoEnv } from "../env";
import { loadZod, schema, z } from "../lazy-schema";
import { COMPILED_PARTS, type CompiledRequest, UNSURE } from "./compiled-request";
import { ApiError, type ErrorCode, MAX_LISTED_PROBLEMS, MORE_PROBLEMS, zodProblems } from "./errors";

/**
 * Every router that validates through zod is an OpenAPIHono built here, so that a validation failure of
 * any route (body, query or path) becomes the contract's 400 envelope with one `errors[]` entry per problem.
 */
export async function router() {
  const { OpenAPIHono } = await loadZod();
  return new OpenAPIHono<HonoEnv>({
    defaultHook: (result) => {
      // @hono/zod-validator passes the raw input as `data`, so that missing values can be told apart.
      if (!result.success) throw ApiError.of(zodProblems(result.error, "data" in result ? result.data : undefined));
    },
  });
}

/** The registry the document is built in. */
export type OpenApiRegistry = Awaited<ReturnType<typeof router>>["openAPIRegistry"];

/**
 * What `createRoute` takes, with the parts only some callers need given as functions: the request's
 * schemas (built on the route's first request, then validating every request) and the responses
 * (built only for the document).
 */
export type RouteDefinition = Omit<RouteConfig, "request" | "responses"> & {
  request?: () => NonNullable<RouteConfig["request"]>;
  responses: () => RouteConfig["responses"];
};

/** The `createRoute` config a definition stands for: what types the handler. */
type Defined<D extends RouteDefinition> = Omit<D, "request" | "responses"> & {
  request: D["request"] extends () => infer R ? (R extends NonNullable<RouteConfig["request"]> ? R : never) : undefined;
  responses: D["responses"] extends () => infer R ? (R extends RouteConfig["responses"] ? R : never) : never;
};

/** A route of the API, mounted on its first request (src/api/mount.ts). */
export interface OpenApiRoute {
  /** The HTTP method, upper case, and the path as Hono routes it (`:param`). */
  method: string;
  path: string;
  /** What defines it: the build compiles its request's validators from it (build/request-compiler.ts). */
  definition: RouteDefinition;
  /** The route's router with its validators: what serves it. */
  serve(): Promise<Hono<HonoEnv>>;
  /** Registers the route with its responses: what documents it. */
  document(registry: OpenApiRegistry): Promise<void>;
}

/**
 * The one way to define an operation: `createRoute`'s definition and the handler. The document gets the
 * definition with its responses. Serving it builds the router `OpenAPIHono.openapi` would (its
 * validators and media-type checks, our `defaultHook`), unless the build compiled the route's request
 * validators (generated/validators.ts): then a plain Hono router checks the request with them
 * (`serveRoute`) and loads zod only for a request they are not sure of, to read it or say why it is
 * refused exactly as zod's validator would (the same parse, the same hook), so a cold isolate's first
 * request to the route does not evaluate zod.
 */
export function openApiRoute<D extends RouteDefinition>(
  definition: D,
  handler: RouteHandler<Defined<D>, HonoEnv>,
): OpenApiRoute {
  const { method, path } = addressOf(definition);
  return {
    method,
    path,
    definition,
    serve: async () => {
      const { COMPILED_REQUESTS } = await import("../../generated/validators");
      return serveRoute(definition, handler as never, COMPILED_REQUESTS[definition.operationId ?? ""]);
    },
    document: async (registry) => {
      // As `OpenAPIHono.openapi` registers it: the route's middleware serves, it does not document.
      const { middleware: _, ...documented } = await routeConfig(definition, definition.responses());
      registry.registerPath(documented);
    },
  };
}

/**
 * The router that serves a route: with its compiled validators (`compiled`), a plain Hono router that
 * checks the request as OpenAPIHono would, in its order (query, path, headers, the media type, the JSON
 * body), and asks zod only of a request they are not sure of; without them, OpenAPIHono's own.
 */
export async function serveRoute(
  definition: RouteDefinition,
  handler: RouteHandler<never, HonoEnv>,
  compiled: CompiledRequest | undefined,
): Promise<Hono<HonoEnv>> {
  const { request, responses: _, ...rest } = definition;
  if (!compiled) {
    // Hidden: a served route needs no document entry, and has no responses to put in one.
    return (await router()).openapi({ ...(await routeConfig(definition, {})), hide: true }, handler);
  }
  const byZod = async (part: CompiledPart, value: unknown) => {
    await loadZod();
    const schema = partSchema(request!(), part);
    // As @hono/zod-validator gives zod the headers: each under its name as the schema spells it.
    const input = part === "headers" ? underSchemaNames(schema, value) : value;
    const result = await schema.safeParseAsync(input);
    if (!result.success) throw ApiError.of(zodProblems(result.error, input));
    return result.data;
  };
  const validators = COMPILED_PARTS.flatMap(([target, part]) => {
    const check = compiled[target];
    if (!check) return [];
    const validate = validator(target, async (value) => {
      const checked = check(value);
      return checked === UNSURE ? await byZod(part, value) : checked;
    });
    return target === "json" ? [jsonMediaType, validate] : [validate];
  });
  const middleware = rest.middleware ? [rest.middleware].flat() : [];
  const { method, path } = addressOf(definition);
  return new Hono<HonoEnv>().on([method], [path], ...middleware, ...validators, handler as never);
}

/** The `createRoute` config a definition stands for, with `responses`: what OpenAPIHono serves and documents. */
async function routeConfig(definition: RouteDefinition, responses: RouteConfig["responses"]) {
  const { request, responses: _, ...rest } = definition;
  const { createRoute } = await loadZod();
  return createRoute({ ...rest, ...(request ? { request: request() } : {}), responses });
}

/** The method (upper case) and the path as Hono routes it (`:param`) of a route's definition. */
const addressOf = (definition: RouteDefinition) => ({
  method: definition.method.toUpperCase(),
  path: definition.path.replaceAll(/\/{(.+?)}/g, "/:$1"),
});

type CompiledPart = (typeof COMPILED_PARTS)[number][1];

/** The zod schema of a request part (of the body, its JSON content's). */
const partSchema = (request: NonNullable<RouteConfig["request"]>, part: CompiledPart) =>
  (part === "body"
    ? (request.body?.content["application/json"] as { schema: unknown } | undefined)?.schema
    : request[part]) as z.ZodType;

/** The headers, each under the schema's spelling of its name where the schema has it (Hono's are lower case). */
function underSchemaNames(schema: z.ZodType, headers: unknown) {
  const names = new Map(Object.keys((schema as unknown as { shape: object }).shape).map((n) => [n.toLowerCase(), n]));
  return Object.fromEntries(Object.entries(headers as object).map(([name, value]) => [names.get(name) ?? name, value]));
}

/** What OpenAPIHono's `matchesMediaType` accepts for `application/json`. */
const JSON_REQUEST = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

/**
 * OpenAPIHono's media-type gate of a JSON body: a Content-Type other than JSON, or a body without one,
 * is answered 415 before the body is validated.
 */
const jsonMediaType = createMiddleware<HonoEnv>(async (c, next) => {
  const contentType = c.req.header("content-type");
  if (contentType ? !JSON_REQUEST.test(contentType) : await hasRequestBody(c.req.raw, c)) {
    throw new HTTPException(415, { message: "Unsupported Media Type" });
  }
  await next();
});

/** Whether the request has a body of at least one byte, as OpenAPIHono's gate reads it. */
async function hasRequestBody(raw: Request, c: { req: { arrayBuffer(): Promise<ArrayBuffer> } }) {
  if (raw.body === null) return false;
  if (raw.bodyUsed) return (await c.req.arrayBuffer()).byteLength > 0;
  const body = raw.clone().body;
  if (body === null) return false;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return false;
      if (value.byteLength > 0) return true;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

// ---- Headers ---------------------------------------------------------------------------------

const integer = { type: "integer" } as const;
const text = { type: "string" } as const;

/** Response headers, registered once as components (see `registerOpenApiComponents`). */
export const RESPONSE_HEADERS = {
  "X-Request-Id": {
    description: "Identifies the request; also `requestId` in every error body and in the logs",
    required: true,
    schema: text,
  },
  "X-Rate-Limit-Limit": { description: "Requests allowed in the current window", required: true, schema: integer },
  "X-Rate-Limit-Remaining": { description: "Requests left in the current window", required: true, schema: integer },
  "X-Rate-Limit-Reset": { description: "Seconds until the current window ends", required: true, schema: integer },
  "Retry-After": { description: "Seconds to wait before trying again", required: true, schema: integer },
  "WWW-Authenticate": {
    description: 'The bearer challenge of RFC 6750, e.g. `Bearer realm="financing", error="invalid_token"`',
    required: true,
    schema: text,
  },
  Location: { description: "The created resource", required: true, schema: { type: "string", format: "uri" } },
  "Retry-After-When-In-Use": {
    description: "With IDEMPOTENCY_KEY_IN_USE: seconds until the first request's claim ends",
    schema: integer,
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`",
    schema: { type: "string", enum: ["true"] as string[] },
  },
  "Cache-Control": {
    description: "`no-store` (or `private, no-store`): the answer holds a secret, or a customer's file",
    required: true,
    schema: text,
  },
  "Content-Disposition": {
    description: "`attachment` with an ASCII `filename` and the exact name as `filename*` (RFC 6266, RFC 8187)",
    required: true,
    schema: text,
  },
} as const;

type HeaderName = keyof typeof RESPONSE_HEADERS;

const ref = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });

/** Headers every response carries, errors included. */
const EVERY_RESPONSE: HeaderName[] = [
  "X-Request-Id",
  "X-Rate-Limit-Limit",
  "X-Rate-Limit-Remaining",
  "X-Rate-Limit-Reset",
];

/** Components that describe one header where it is optional (the response header is named without the suffix). */
const headerName = (component: HeaderName) => (component === "Retry-After-When-In-Use" ? "Retry-After" : component);

/** The response headers of the document: `always` (by default those every response carries), and `names`. */
export const headers = (names: readonly HeaderName[], always: readonly HeaderName[] = EVERY_RESPONSE) =>
  Object.fromEntries([...always, ...names].map((name) => [headerName(name), ref(name)]));

// ---- Bodies ----------------------------------------------------------------------------------

const ErrorDetailSchema = schema(() =>
  z
    .object({
      code: z.string().openapi({ example: "INVALID_VALUE" }),
      message: z.string(),
      severity: z.literal("ERROR"),
      attribute: z.string().optional().openapi({ example: "order.items[0].totalPrice.amount" }),
    })
    .openapi("ErrorDetail"),
);

/** The envelopes built so far, by their `error` and `errors[].code` values. */
const errorBodies = new Map<string, ReturnType<typeof buildErrorBody>>();

/**
 * The envelope of one status: which `error` values, and which `errors[].code` values, it can carry.
 * Built once per distinct pair: most statuses answer alike on every operation, and each schema built
 * is CPU spent by the cold isolate that loads a route (the document is the same either way).
 */
function errorBody(errors: readonly ErrorCode[], codes?: readonly ProblemCode[]) {
  const key = `${errors.join()}|${codes?.join() ?? "-"}`;
  let schema = errorBodies.get(key);
  if (!schema) {
    schema = buildErrorBody(errors, codes);
    errorBodies.set(key, schema);
  }
  return schema;
}

function buildErrorBody(errors: readonly ErrorCode[], codes?: readonly ProblemCode[]) {
  return z.object({
    error: z.enum(errors as [ErrorCode, ...ErrorCode[]]),
    error_description: z.string(),
    requestId: z.string(),
    ...(codes
      ? {
          errors: z
            .array(ErrorDetailSchema().extend({ code: z.enum([codes[0]!, ...codes.slice(1), MORE_PROBLEMS]) }))
            .openapi({
              description: `At most ${MAX_LISTED_PROBLEMS} entries; when a request has more problems, the last entry (code ${MORE_PROBLEMS}) says how many are not listed`,
            }),
        }
      : {}),
  });
}

const example = (error: ErrorCode, description: string, detail?: { code: ProblemCode; attribute?: string }) => ({
  error,
  error_description: detail?.attribute ? `${detail.attribute}: ${description}` : description,
  requestId: "8f14e45f-ceea-467e-a53b-2f6a1d3c1a9e",
  ...(detail ? { errors: [{ message: description, severity: "ERROR", ...detail }] } : {}),
});

function failure(
  description: string,
  errors: readonly ErrorCode[],
  sample: ReturnType<typeof example>,
  extraHeaders: readonly HeaderName[] = [],
  codes?: readonly ProblemCode[],
  always?: readonly HeaderName[],
) {
  return {
    description,
    headers: headers(extraHeaders, always),
    content: { "application/json": { schema: errorBody(errors, codes), example: sample } },
  };
}

/** Problems any request with a body or a query can have. */
const ALWAYS_INVALID: InvalidCode[] = [
  "REQUIRED",
  "INVALID_VALUE",
  "UNKNOWN_PARAMETER",
  "MALFORMED_JSON",
  "INVALID_REQUEST",
];

/**
 * The business rules that may refuse an operation (422), each with when it applies where the code alone
 * does not say (empty otherwise): one declaration gives the 422's `errors[].code` enum and the prose of
 * the operation's description (`withRefusals`), so the two cannot differ.
 */
export type Refusals = Partial<Record<RefusalCode, string>>;

/** The operation's description followed by its refusals, as partners read them. */
export function withRefusals(description: string, refusals: Refusals): string {
  const listed = Object.entries(refusals).map(([code, when]) => (when ? `${code} (${when})` : code));
  return `${description} Refusals (422): ${listed.join(", ")}.`;
}

export interface FailureSpec {
  /** Takes a JSON body: 413 and 415. */
  body?: boolean;
  /**
   * A POST or PUT under /financing/v1: `Idempotency-Key` and its 409 and 422, and the partner's storage
   * quota (a stored answer counts towards it, so does whatever the write adds).
   */
  idempotent?: boolean;
  /** Behind a bearer token (401). Default true. */
  session?: boolean;
  /** Refers to a resource by id (404 when unknown). Default true. */
  lookup?: boolean;
  /** 400 codes of this operation beyond the ones every request can have. */
  invalid?: InvalidCode[];
  /** 422 codes of the business rules this operation applies. */
  refusals?: Refusals;
  /** Changes an application through its guarded write, so that a storm of writes can end in 409. */
  guarded?: boolean;
}

/**
 * Every failure an operation can answer, each with the contract's envelope (the `error` values and
 * `errors[].code` values of that status as enums), the headers it carries and an example.
 */
export function failures(spec: FailureSpec = {}) {
  const { body = false, idempotent = false, session = true, lookup = true } = spec;
  const conflicts: ConflictCode[] = [
    ...(spec.guarded ? ["CONCURRENT_MODIFICATION" as const] : []),
    "IDEMPOTENCY_KEY_IN_USE",
  ];
  const refusals: RefusalCode[] = [
    ...(Object.keys(spec.refusals ?? {}) as RefusalCode[]),
    ...(idempotent ? ["IDEMPOTENCY_KEY_REUSED" as const, "STORAGE_QUOTA_EXCEEDED" as const] : []),
  ];
  const invalid: InvalidCode[] = [...ALWAYS_INVALID, ...(spec.invalid ?? [])];
  return {
    400: failure(
      invalid.includes("INVALID_CREDENTIALS")
        ? "The request is malformed (`invalid_request`), or the user name or password is wrong (`invalid_grant`)"
        : "The request is malformed or inconsistent: `errors[]` names each problem at its attribute",
      invalid.includes("INVALID_CREDENTIALS") ? ["invalid_request", "invalid_grant"] : ["invalid_request"],
      example("invalid_request", "must be an integer", { code: "INVALID_VALUE", attribute: "totalPrice.amount" }),
      [],
      invalid,
    ),
    ...(session
      ? {
          401: failure(
            "The access token is missing (`invalid_request`) or invalid or expired (`invalid_token`)",
            ["invalid_request", "invalid_token"],
            example("invalid_token", "the access token is invalid or has expired"),
            ["WWW-Authenticate"],
          ),
        }
      : {}),
    403: failure(
      "Plain HTTP where HTTPS is required",
      ["https_required"],
      example("https_required", "requests must use HTTPS"),
    ),
    ...(lookup
      ? {
          404: failure(
            "No such resource, or one of another partner (never 403: existence is not revealed)",
            ["not_found"],
            example("not_found", "application not found"),
          ),
        }
      : {}),
    ...(idempotent
      ? {
          409: failure(
            "A request with the same `Idempotency-Key` is still running (retry after `Retry-After`), or concurrent writes to the application won every retry",
            ["conflict"],
            example("conflict", "retry when the first request has finished", {
              code: "IDEMPOTENCY_KEY_IN_USE",
              attribute: "Idempotency-Key",
            }),
            ["Retry-After-When-In-Use"],
            conflicts,
          ),
        }
      : {}),
    ...(body
      ? {
          413: failure(
            "The body is over 10 MB",
            ["request_too_large"],
            example("request_too_large", "request body exceeds 10485760 bytes"),
          ),
          415: failure(
            "A non-empty body that is not JSON",
            ["unsupported_media_type"],
            example("unsupported_media_type", "request body must be JSON (Content-Type: application/json)"),
          ),
        }
      : {}),
    ...(refusals.length > 0
      ? {
          422: failure(
            "A business rule refuses the request: `errors[].code` says which",
            ["unprocessable"],
            example("unprocessable", "a refund of 900 exceeds the 800 still refundable", {
              code: refusals[0]!,
              attribute: "totalPrice.amount",
            }),
            [],
            refusals,
          ),
        }
      : {}),
    429: failure(
      "The call quota is spent; `Retry-After` says when to try again",
      ["rate_limit_exceeded"],
      example("rate_limit_exceeded", "call quota exceeded; retry after the period resets"),
      ["Retry-After"],
    ),
    500: failure(
      "A fault of ours, never of the request; quote the `requestId`",
      ["server_error"],
      example("server_error", "internal error; quote the requestId when reporting it"),
    ),
    503: failure(
      "The database or the rate limiter is overloaded or briefly unavailable: nothing was done, retry after `Retry-After`. The `X-Rate-Limit-*` headers are there only when the rate limiter answered",
      ["service_unavailable"],
      example("service_unavailable", "the service is briefly overloaded; retry after the time in Retry-After"),
      ["Retry-After"],
      undefined,
      ["X-Request-Id"],
    ),
  } as const;
}

// ---- Successes and requests ------------------------------------------------------------------

/**
 * An optional request field with a default. Written as optional-then-filled rather than zod's
 * `.default()`: the document then says the field may be left out, instead of listing a `default`
 * that client generators (openapi-typescript) read as "always present" and so demand.
 */
export const withDefault = <T extends z.ZodType>(schema: T, value: z.output<T>, description?: string) => {
  const field = schema
    .optional()
    .transform((v) => v ?? value)
    .openapi({ description: `${description ? `${description}. ` : ""}Default: ${JSON.stringify(value)}` });
  WITH_DEFAULTS.set(field, value);
  return field;
};

/** The default of each field `withDefault` made: the request compiler knows what its transform does. */
export const WITH_DEFAULTS = new WeakMap<z.ZodType, unknown>();

/**
 * An array of at most `max` elements whose length is checked before any element is: zod validates
 * every element first and counts after, so a million elements where a hundred are allowed would cost a
 * million validations and as many problems. Refused whole instead, with zod's own issue and message.
 * (The document is the same as for `z.array(element).min(min).max(max)`.)
 */
export const listOf = <T extends z.ZodType>(element: T, max: number, min?: { length: number; message?: string }) => {
  const list = z.preprocess(
    (value, ctx) => {
      if (!Array.isArray(value) || value.length <= max) return value;
      ctx.issues.push({ code: "too_big", origin: "array", maximum: max, inclusive: true, input: value });
      return z.NEVER;
    },
    min ? z.array(element).min(min.length, min.message).max(max) : z.array(element).max(max),
  );
  LISTS.add(list);
  return list;
};

/** The arrays `listOf` made: the request compiler knows what their preprocess does. */
export const LISTS = new WeakSet<z.ZodType>();

/** A JSON answer with its example, the headers every response carries and `extra` ones. */
export const jsonContent = <T extends z.ZodType>(
  schema: T,
  description: string,
  sample: unknown,
  extra: readonly HeaderName[] = [],
) => ({
  description,
  headers: headers(extra),
  content: { "application/json": { schema, example: sample } },
});

/** The answer of a write: a replay of it says so in `Idempotent-Replayed`. */
export const writeContent = <T extends z.ZodType>(
  schema: T,
  description: string,
  sample: unknown,
  extra: readonly HeaderName[] = [],
) => jsonContent(schema, description, sample, [...extra, "Idempotent-Replayed"]);

/** A bodiless answer (204) with the headers every response carries. */
export const emptyContent = (description: string) => ({ description, headers: headers([]) });

/** Request bodies are always validated; an empty body validates as `{}`. */
export const jsonBodyOf = <T extends z.ZodType>(schema: T, sample: unknown) => ({
  required: true,
  content: { "application/json": { schema, example: sample } },
});

/** The `Idempotency-Key` request header of every POST and PUT under /financing/v1 (CONTRACT 1). */
export const IdempotencyHeaders = schema(() =>
  z.object({
    "Idempotency-Key": z.string().min(1).max(255).optional().openapi({
      description:
        "Makes the request safe to retry: the same key with the same request within 24 hours answers the first answer again (`Idempotent-Replayed: true`) without doing the work twice.",
      example: "order-2026-000123-send-1",
    }),
  }),
);

export const bearerSecurity = [{ bearerAuth: [] }];

/** The document's shared parts: header components and the security scheme. */
export function registerOpenApiComponents(registry: OpenApiRegistry) {
  for (const [name, header] of Object.entries(RESPONSE_HEADERS)) {
    registry.registerComponent("headers", name, header);
  }
  registry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "The `accessToken` of `POST /authentication/v1/partner`, valid for 7200 seconds",
  });
}
