import type { ZodError } from "zod";
import type { Problem, ProblemCode, Result } from "../domain/result";

/**
 * The code of the last entry of a list cut short (ApiError.of): it says how many problems are not
 * listed. Never a problem of its own, so it decides no status.
 */
export const MORE_PROBLEMS = "MORE_PROBLEMS";

/** One problem of a 400, 409 or 422, with `attribute` a path into the request. */
export interface ErrorDetail {
  code: ProblemCode | typeof MORE_PROBLEMS;
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
  OFFER_CHANGED: "unprocessable",
  ORDER_ALREADY_SENT: "unprocessable",
  ITEM_NOT_FOUND: "unprocessable",
  INVALID_QUANTITY: "unprocessable",
  NOTHING_TO_RETURN: "unprocessable",
  REFUND_LIMIT_EXCEEDED: "unprocessable",
  TOTAL_PRICE_LIMIT_EXCEEDED: "unprocessable",
  DISCOUNT_NOT_SEPARABLE: "unprocessable",
  FILE_TOO_LARGE: "unprocessable",
  FILE_TYPE_NOT_ALLOWED: "unprocessable",
  LINE_LIMIT_REACHED: "unprocessable",
  APPLICATION_SIZE_LIMIT_REACHED: "unprocessable",
  DOCUMENT_LIMIT_REACHED: "unprocessable",
  STORAGE_QUOTA_EXCEEDED: "unprocessable",
  ROTATION_LIMIT_REACHED: "unprocessable",
  AUTHORIZATION_EXPIRED: "unprocessable",
  NOTHING_TO_EXTEND: "unprocessable",
  EXTENSION_LIMIT_REACHED: "unprocessable",
  NOTHING_DUE: "unprocessable",
  TRACKING_LIMIT_REACHED: "unprocessable",
  NOTHING_TO_PAY: "unprocessable",
  PAYOUT_NOT_PENDING: "unprocessable",
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
   * outranks a conflict, which outranks a refusal). The problems are listed as far as the answer's
   * bounds allow (`listed`); `total` counts problems the caller found but did not keep.
   */
  static of(problems: readonly Problem[], total = problems.length): ApiError {
    const kinds = new Set(problems.map((p) => PROBLEM_KINDS[p.code]));
    const kind = kinds.has("invalid_request")
      ? "invalid_request"
      : kinds.has("conflict")
        ? "conflict"
        : "unprocessable";
    const errors = listed(problems, total);
    return new ApiError(kind, describe(errors, total), errors);
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

/** At most this many entries in `errors[]`; when there are more problems the last entry counts them. */
export const MAX_LISTED_PROBLEMS = 100;
/**
 * The bytes `errors[]` may take as JSON. Messages and attributes can echo the request (a key, a filter
 * value), so entries are measured as they are listed: no request makes an error answer larger than
 * this and its description, which together stay far inside 64 KB.
 */
export const MAX_LISTED_BYTES = 48 * 1024;
/** Characters kept of one message or attribute. */
const MAX_TEXT = 500;
const utf8 = new TextEncoder();

/** The problems as error entries, cut where the bounds above say, with a last entry counting the rest. */
function listed(problems: readonly Problem[], total: number): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  let bytes = 2;
  for (const p of problems) {
    const entry = detail(p.code, p.message, p.attribute);
    const size = utf8.encode(JSON.stringify(entry)).length + 1;
    if (errors.length === MAX_LISTED_PROBLEMS - 1 && total > MAX_LISTED_PROBLEMS) break;
    if (bytes + size > MAX_LISTED_BYTES) break;
    errors.push(entry);
    bytes += size;
  }
  if (errors.length < total) {
    const more = total - errors.length;
    errors.push({
      code: MORE_PROBLEMS,
      message: `${more} more problem${more === 1 ? " is" : "s are"} not listed`,
      severity: "ERROR",
    });
  }
  return errors;
}

function describe(errors: ErrorDetail[], total: number): string {
  const first = errors[0];
  if (!first) return "invalid request";
  const head = first.attribute ? `${first.attribute}: ${first.message}` : first.message;
  return total > 1 ? `${head} (and ${total - 1} more)` : head;
}

/** Text of the request's making kept to MAX_TEXT characters, never cutting a character in two. */
function bounded(text: string): string {
  if (text.length <= MAX_TEXT) return text;
  const cut = /[\uD800-\uDBFF]/.test(text[MAX_TEXT - 1]!) ? MAX_TEXT - 1 : MAX_TEXT;
  return `${text.slice(0, cut)}…`;
}

export function detail(code: ProblemCode, message: string, attribute?: string): ErrorDetail {
  return {
    code,
    message: bounded(message),
    severity: "ERROR",
    ...(attribute !== undefined ? { attribute: bounded(attribute) } : {}),
  };
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
