import type { ZodError } from "zod";
import type { Problem, ProblemCode, Result } from "../domain/result";

/** One problem of a 400, 409 or 422, with `attribute` a path into the request. */
export interface ErrorDetail {
  code: ProblemCode;
  message: string;
  severity: "ERROR";
  attribute?: string;
}

/**
 * Every failure the API answers, with its status and the envelope's `error` (CONTRACT 2). One table:
 * an error is built from its kind alone, so no error can carry a status that does not belong to it.
 */
const KINDS = {
  invalid_request: { status: 400, error: "invalid_request" },
  invalid_grant: { status: 400, error: "invalid_grant" },
  /** RFC 6750: a request without a token is `invalid_request`, but answered 401. */
  token_missing: { status: 401, error: "invalid_request" },
  invalid_token: { status: 401, error: "invalid_token" },
  https_required: { status: 403, error: "https_required" },
  not_found: { status: 404, error: "not_found" },
  conflict: { status: 409, error: "conflict" },
  request_too_large: { status: 413, error: "request_too_large" },
  unsupported_media_type: { status: 415, error: "unsupported_media_type" },
  unprocessable: { status: 422, error: "unprocessable" },
  rate_limit_exceeded: { status: 429, error: "rate_limit_exceeded" },
  server_error: { status: 500, error: "server_error" },
  service_unavailable: { status: 503, error: "service_unavailable" },
} as const;

export type ErrorKind = keyof typeof KINDS;
export type ErrorCode = (typeof KINDS)[ErrorKind]["error"];
type Status = (typeof KINDS)[ErrorKind]["status"];

/**
 * The status of each problem code (like unkey's codeToStatus). A request the rules find malformed or
 * inconsistent is 400, one that collided with another is 409, one the business rules refuse is 422.
 * The type makes it exhaustive: a new code cannot be added without its status.
 */
const PROBLEM_KINDS: Record<ProblemCode, "invalid_request" | "conflict" | "unprocessable"> = {
  REQUIRED: "invalid_request",
  INVALID_VALUE: "invalid_request",
  UNKNOWN_PARAMETER: "invalid_request",
  MALFORMED_JSON: "invalid_request",
  INVALID_REQUEST: "invalid_request",
  CURRENCY_MISMATCH: "invalid_request",
  TOTAL_PRICE_MISMATCH: "invalid_request",
  UNIT_PRICE_MISMATCH: "invalid_request",
  VAT_MISMATCH: "invalid_request",
  NEGATIVE_AMOUNT: "invalid_request",
  NON_POSITIVE_TOTAL: "invalid_request",
  INVALID_CREDENTIALS: "invalid_request",
  CONCURRENT_MODIFICATION: "conflict",
  IDEMPOTENCY_KEY_IN_USE: "conflict",
  APPLICATION_NOT_READY: "unprocessable",
  APPLICATION_REJECTED: "unprocessable",
  APPLICATION_ALREADY_CANCELLED: "unprocessable",
  APPLICATION_ALREADY_DECIDED: "unprocessable",
  ORDER_ALREADY_SENT: "unprocessable",
  ITEM_NOT_FOUND: "unprocessable",
  INVALID_QUANTITY: "unprocessable",
  NOTHING_TO_RETURN: "unprocessable",
  REFUND_LIMIT_EXCEEDED: "unprocessable",
  TOTAL_PRICE_LIMIT_EXCEEDED: "unprocessable",
  DISCOUNT_NOT_SEPARABLE: "unprocessable",
  FILE_TOO_LARGE: "unprocessable",
  FILE_TYPE_NOT_ALLOWED: "unprocessable",
  IDEMPOTENCY_KEY_REUSED: "unprocessable",
};

/** The problem codes of 422 answers, for the OpenAPI descriptions. */
export const REFUSAL_CODES = (Object.keys(PROBLEM_KINDS) as ProblemCode[]).filter(
  (code) => PROBLEM_KINDS[code] === "unprocessable",
);

/** The one error type every failure becomes; `app.onError` renders it as the contract's envelope. */
export class ApiError extends Error {
  readonly status: Status;
  readonly error: ErrorCode;

  constructor(
    readonly kind: ErrorKind,
    readonly description: string,
    readonly errors?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.status = KINDS[kind].status;
    this.error = KINDS[kind].error;
  }

  /**
   * The answer to problems found in a request: their codes decide the status (a malformed request
   * outranks a conflict, which outranks a refusal), every problem is listed.
   */
  static of(problems: readonly Problem[], headers?: Record<string, string>): ApiError {
    const kinds = problems.map((p) => PROBLEM_KINDS[p.code]);
    const kind = kinds.includes("invalid_request")
      ? "invalid_request"
      : kinds.includes("conflict")
        ? "conflict"
        : "unprocessable";
    const errors = problems.map((p) => detail(p.code, p.message, p.attribute));
    return new ApiError(kind, describe(errors), errors, headers);
  }

  static notFound(what = "resource"): ApiError {
    return new ApiError("not_found", `${what} not found`);
  }
}

/** The value of a result, or the 4xx that its problems call for. */
export function orRefuse<T>(result: Result<T>): T {
  if (!result.ok) throw ApiError.of(result.problems);
  return result.value;
}

function describe(errors: ErrorDetail[]): string {
  const first = errors[0];
  if (!first) return "invalid request";
  const head = first.attribute ? `${first.attribute}: ${first.message}` : first.message;
  return errors.length > 1 ? `${head} (and ${errors.length - 1} more)` : head;
}

export function detail(code: ProblemCode, message: string, attribute?: string): ErrorDetail {
  return { code, message, severity: "ERROR", ...(attribute !== undefined ? { attribute } : {}) };
}

/** `["order", "items", 0, "totalPrice"]` → `order.items[0].totalPrice`. */
export function attributePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const isProblemCode = (code: unknown): code is ProblemCode =>
  typeof code === "string" && Object.hasOwn(PROBLEM_KINDS, code);

/**
 * zod issues → problems. An issue about a value absent from `input` is REQUIRED (zod words it as a
 * type or option mismatch); a refinement may name its own code; anything else is INVALID_VALUE.
 */
export function zodProblems(error: ZodError, input: unknown): Problem[] {
  return error.issues.map((issue) => {
    const attribute = attributePath(issue.path) || undefined;
    const at = attribute === undefined ? {} : { attribute };
    if (issue.code === "custom" && isProblemCode(issue.params?.code)) {
      return { code: issue.params.code, message: issue.message, ...at };
    }
    if (issue.code !== "custom" && valueAt(input, issue.path) === undefined) {
      return { code: "REQUIRED", message: "is required", ...at };
    }
    return {
      code: issue.code === "unrecognized_keys" ? "UNKNOWN_PARAMETER" : "INVALID_VALUE",
      message: issue.message,
      ...at,
    };
  });
}

export interface ErrorBody {
  error: ErrorCode;
  error_description: string;
  requestId: string;
  errors?: ErrorDetail[];
}

export function errorBody(err: ApiError, requestId: string): ErrorBody {
  return {
    error: err.error,
    error_description: err.description,
    requestId,
    ...(err.errors ? { errors: err.errors } : {}),
  };
}
