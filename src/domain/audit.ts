/**
 * The audit log: an append-only record per partner of every console action and every API write, saying
 * who (a person, the API with its token's id, the partner's credentials in the console, an operator),
 * what (the operation and its key figures: the application, an amount, a reason, what it was done to),
 * when, from which address, and with what outcome. The rules here decide only what an entry says; the
 * HTTP surfaces record it (src/http/audit.ts, src/console/audit.ts) and src/db/audit-events.ts stores it.
 */
import type { Plan } from "./plan";

export const ACTOR_TYPES = ["PERSON", "API", "PARTNER_CREDENTIALS", "OPERATOR"] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export const AUDIT_SOURCES = ["CONSOLE", "API", "OPERATOR"] as const;
export type AuditSource = (typeof AUDIT_SOURCES)[number];

/**
 * SUCCEEDED: it was done; REFUSED: a rule, a role or the request refused it (nothing changed). A write
 * that failed on our side (5xx) did nothing and is no entry: the service's log has it, by request id.
 */
export const AUDIT_OUTCOMES = ["SUCCEEDED", "REFUSED"] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** Who did it: a person (id and e-mail), the API (the token's id), the partner's credentials, an operator. */
export interface Actor {
  type: ActorType;
  id: string | null;
  name: string | null;
}

/** What an entry says of the operation beyond its name: the key figures. */
export interface AuditFigures {
  applicationId?: string;
  amount?: number;
  currency?: string;
  reason?: string;
  /** What the operation was done to when it is not an application: a person, an event, a time range. */
  subject?: string;
}

export interface AuditEntry extends AuditFigures {
  operation: string;
  source: AuditSource;
  actor: Actor;
  address: string | null;
  outcome: AuditOutcome;
  /** Why it was refused: the contract's problem code, or the console's (FORBIDDEN, WRONG_CREDENTIALS). */
  code?: string;
}

/** An entry as the partner's log stores it (src/db/schema.ts `auditEvents`): one row, never changed. */
export interface AuditRecord {
  id: string;
  partnerId: string;
  occurredAt: number;
  source: AuditSource;
  actorType: ActorType;
  actorId: string | null;
  actorName: string | null;
  operation: string;
  applicationId: string | null;
  amount: number | null;
  currency: string | null;
  reason: string | null;
  subject: string | null;
  address: string | null;
  outcome: AuditOutcome;
  code: string | null;
}

/** The stored row of an entry of the partner's log, with its id, made at `at`. */
export function auditRecord(partnerId: string, entry: AuditEntry, at: number, id: string): AuditRecord {
  return {
    id,
    partnerId,
    occurredAt: at,
    source: entry.source,
    actorType: entry.actor.type,
    actorId: entry.actor.id,
    actorName: entry.actor.name,
    operation: entry.operation,
    applicationId: entry.applicationId ?? null,
    amount: entry.amount ?? null,
    currency: entry.currency ?? null,
    reason: entry.reason ?? null,
    subject: entry.subject ?? null,
    address: entry.address,
    outcome: entry.outcome,
    code: entry.code ?? null,
  };
}

/** Longest free text an entry keeps (a reason, a subject): the API's reasons are at most 500 characters. */
export const MAX_AUDIT_TEXT = 500;

/**
 * The id of an access token as the log names it: the first 16 hex digits of its SHA-256, which the
 * partner can compute from the token it holds (the service keeps nothing more of it).
 */
export const tokenId = (tokenHash: string) => tokenHash.slice(0, 16);

/** The operations of the API that are sent with POST but write nothing, so are no write to record. */
export const READ_ONLY_POSTS: ReadonlySet<string> = new Set(["precheck"]);

export const outcomeOf = (status: number): AuditOutcome => (status < 400 ? "SUCCEEDED" : "REFUSED");

const text = (value: unknown) =>
  typeof value === "string" && value.length > 0 ? value.slice(0, MAX_AUDIT_TEXT) : undefined;

/** A plan's key figures: the money it refunded, the reason it was given. */
export function figuresOfPlan(plan: Plan): AuditFigures {
  const { refund, application } = plan;
  if (refund) {
    return {
      amount: refund.amount,
      currency: refund.currency,
      ...(refund.reason ? { reason: text(refund.reason) } : {}),
    };
  }
  const reason = application.cancelReason
    ? [application.cancelReason, application.customCancelReason].filter(Boolean).join(": ")
    : undefined;
  return reason ? { reason: text(reason) } : {};
}

/**
 * The key figures a request asked for, when no plan says what was done (a refusal, or an operation
 * that is not a plan): its `totalPrice` (or its order's) and its reason.
 */
export function figuresOfRequest(body: unknown): AuditFigures {
  if (typeof body !== "object" || body === null) return {};
  const record = body as Record<string, unknown>;
  const order = (record.order ?? {}) as Record<string, unknown>;
  const money = (record.totalPrice ?? order.totalPrice) as { amount?: unknown; currency?: unknown } | undefined;
  const amount = money && Number.isSafeInteger(money.amount) ? (money.amount as number) : undefined;
  const currency = text(money?.currency)?.slice(0, 3);
  const reason = text(record.reason) ?? text(record.customReason);
  return {
    ...(amount !== undefined ? { amount } : {}),
    ...(amount !== undefined && currency ? { currency } : {}),
    ...(reason ? { reason } : {}),
  };
}
