/**
 * What the OpenAPI document says of every answer: the response headers (components), the error envelope
 * of each status an operation can answer, with the codes it may carry, and the JSON answers.
 */
import type { ConflictCode, InvalidCode, ProblemCode, RefusalCode } from "../domain/result";
import { type ErrorCode, MAX_LISTED_PROBLEMS, MORE_PROBLEMS } from "../http/errors";
import { schema, z } from "../lazy-schema";
import type { OpenApiRegistry } from "./route";

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

// ---- Successes --------------------------------------------------------------------------------

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
