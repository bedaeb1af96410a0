import type { ZodError } from "zod";

/** One problem of a 400 or 422, with `attribute` a path into the request. */
export interface ErrorDetail {
  code: string;
  message: string;
  severity: "ERROR";
  attribute?: string;
}

export type ErrorCode =
  | "invalid_request"
  | "invalid_grant"
  | "invalid_token"
  | "https_required"
  | "not_found"
  | "conflict"
  | "request_too_large"
  | "unsupported_media_type"
  | "unprocessable"
  | "rate_limit_exceeded"
  | "server_error"
  | "service_unavailable";

/** The one error type every failure becomes; `app.onError` renders it as the contract's envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 503,
    readonly error: ErrorCode,
    readonly description: string,
    readonly errors?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }

  static badRequest(errors: ErrorDetail[]): ApiError {
    return new ApiError(400, "invalid_request", describe(errors), errors);
  }

  /** A business rule refused the request: 422 with the rule's code. */
  static unprocessable(code: string, message: string, attribute?: string): ApiError {
    const detail: ErrorDetail = { code, message, severity: "ERROR", ...(attribute ? { attribute } : {}) };
    return new ApiError(422, "unprocessable", message, [detail]);
  }

  static notFound(what = "resource"): ApiError {
    return new ApiError(404, "not_found", `${what} not found`);
  }
}

function describe(errors: ErrorDetail[]): string {
  const first = errors[0];
  if (!first) return "invalid request";
  const head = first.attribute ? `${first.attribute}: ${first.message}` : first.message;
  return errors.length > 1 ? `${head} (and ${errors.length - 1} more)` : head;
}

export function detail(code: string, message: string, attribute?: string): ErrorDetail {
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

/**
 * zod issues → contract error details. An issue about a value absent from `input` is REQUIRED (zod
 * words it as a type or option mismatch); a refinement may name its own code; anything else is
 * INVALID_VALUE.
 */
export function zodDetails(error: ZodError, input: unknown): ErrorDetail[] {
  return error.issues.map((issue) => {
    const attribute = attributePath(issue.path) || undefined;
    if (issue.code === "custom" && issue.params?.code) {
      return detail(String(issue.params.code), issue.message, attribute);
    }
    if (issue.code !== "custom" && valueAt(input, issue.path) === undefined) {
      return detail("REQUIRED", "is required", attribute);
    }
    return detail(issue.code === "unrecognized_keys" ? "UNKNOWN_PARAMETER" : "INVALID_VALUE", issue.message, attribute);
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
