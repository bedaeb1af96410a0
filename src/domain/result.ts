/**
 * How the rules answer: a value, or a refusal listing every problem. Pure: the HTTP layer maps each
 * code to its status in one table (src/http/errors.ts), so a rule never picks a status itself.
 */

/** Codes of a request that is malformed or inconsistent in itself (the HTTP layer answers 400). */
export type InvalidCode =
  | "REQUIRED"
  | "INVALID_VALUE"
  | "UNKNOWN_PARAMETER"
  | "MALFORMED_JSON"
  | "INVALID_REQUEST"
  | "CURRENCY_MISMATCH"
  | "TOTAL_PRICE_MISMATCH"
  | "UNIT_PRICE_MISMATCH"
  | "VAT_MISMATCH"
  | "NEGATIVE_AMOUNT"
  | "NON_POSITIVE_TOTAL"
  /** A login with a wrong user name or password (the envelope's `error` is `invalid_grant`). */
  | "INVALID_CREDENTIALS";

/** Codes of a well-formed request that the business rules refuse (CONTRACT 5; the HTTP layer answers 422). */
export type RefusalCode =
  | "APPLICATION_NOT_READY"
  | "APPLICATION_REJECTED"
  | "APPLICATION_ALREADY_CANCELLED"
  /** DECIDE on an application whose outcome is already known (the gateway then shows the outcome). */
  | "APPLICATION_ALREADY_DECIDED"
  /** The customer's answer at the gateway names an offer that has changed since (the gateway shows the new one). */
  | "OFFER_CHANGED"
  | "ORDER_ALREADY_SENT"
  | "ITEM_NOT_FOUND"
  | "INVALID_QUANTITY"
  | "NOTHING_TO_RETURN"
  | "REFUND_LIMIT_EXCEEDED"
  | "TOTAL_PRICE_LIMIT_EXCEEDED"
  /** A DISCOUNT line moves only with the whole order (see src/domain/order-lines.ts). */
  | "DISCOUNT_NOT_SEPARABLE"
  | "FILE_TOO_LARGE"
  | "FILE_TYPE_NOT_ALLOWED"
  /** The application holds the most order lines (or documents) one may hold (src/domain/plan.ts). */
  | "LINE_LIMIT_REACHED"
  /** The application would hold more content than one may (src/domain/application-size.ts). */
  | "APPLICATION_SIZE_LIMIT_REACHED"
  | "DOCUMENT_LIMIT_REACHED"
  /** The partner's share of the storage every partner shares is used up (an operator can raise it). */
  | "STORAGE_QUOTA_EXCEEDED"
  /** A rotation would cut a signing secret whose overlap still runs (src/domain/signing-secrets.ts). */
  | "ROTATION_LIMIT_REACHED"
  /** A deadline passed (src/domain/deadlines.ts): the goods' authorization, or the customer's time. */
  | "AUTHORIZATION_EXPIRED"
  /** An extension of an authorization with no goods left to send, or past its cap. */
  | "NOTHING_TO_EXTEND"
  | "EXTENSION_LIMIT_REACHED"
  /** The sweep (or a sandbox's advance) found nothing due: never a partner's answer. */
  | "NOTHING_DUE"
  /** A shipment holds its most tracking entries (src/domain/shipments.ts). */
  | "TRACKING_LIMIT_REACHED"
  /** A payout's entries would not add up to more than zero: they wait for the next (src/domain/payouts.ts). */
  | "NOTHING_TO_PAY"
  /** Only a PENDING payout is marked PAID or FAILED; a marked one never changes (src/domain/payouts.ts). */
  | "PAYOUT_NOT_PENDING"
  | "IDEMPOTENCY_KEY_REUSED";

/** Codes of a request that collided with another one; retrying it is the remedy (409). */
export type ConflictCode = "CONCURRENT_MODIFICATION" | "IDEMPOTENCY_KEY_IN_USE";

export type ProblemCode = InvalidCode | RefusalCode | ConflictCode;

/** One problem, with `attribute` a path into the request where there is one (`order.items[1].quantity`). */
export interface Problem {
  code: ProblemCode;
  message: string;
  attribute?: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });

export const refused = (...problems: Problem[]): { ok: false; problems: Problem[] } => ({ ok: false, problems });

export function problem(code: ProblemCode, message: string, attribute?: string): Problem {
  return attribute === undefined ? { code, message } : { code, message, attribute };
}
