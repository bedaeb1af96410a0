/** Schemas of the audit log (src/domain/audit.ts): one entry per console action and API write. */
import { formatDateTime } from "../../clock";
import { PageQuery } from "../../collections/query";
import type { AuditEventRow } from "../../db/schema";
import { ACTOR_TYPES, AUDIT_OUTCOMES, AUDIT_SOURCES } from "../../domain/audit";
import { type Infer, schema, z } from "../../lazy-schema";
import { DateTimeOutput, Money } from "../applications/schema";

/** The log's query: a page's, with the sorts and filters the log offers (src/collections/audit-events.ts). */
export const AuditEventsQuery = schema(() =>
  PageQuery().extend({
    sort: PageQuery().shape.sort.openapi({
      description: "Comma-separated attributes, `-` for descending: id (the order it happened), occurredAt.",
      example: "-id",
    }),
    filter: PageQuery().shape.filter.openapi({
      description:
        "`<name>|<operator>|<values>` terms joined by `;` (AND). eq, in: operation (e.g. createRefund), actorType " +
        "(PERSON, API, PARTNER_CREDENTIALS, OPERATOR), actorId (a person's id or a token's id), applicationId, source " +
        "(CONSOLE, API, OPERATOR), outcome (SUCCEEDED, REFUSED); lt, lteq, eq, gteq, gt, in: occurredAt.",
      example: "operation|eq|createRefund;occurredAt|gteq|2026-11-01T00:00:00+01:00",
    }),
  }),
);

export const AuditEvent = schema(() =>
  z
    .object({
      id: z.string(),
      occurredAt: DateTimeOutput(),
      source: z.enum(AUDIT_SOURCES).openapi({ description: "Where it was done: the console, the API, an operator" }),
      actor: z
        .object({
          type: z.enum(ACTOR_TYPES),
          id: z.string().optional().openapi({
            description:
              "PERSON: the person's id; API: the access token's id, the first 16 hex digits of the SHA-256 of the token",
          }),
          name: z.string().optional().openapi({ description: "PERSON: their e-mail when it was done" }),
        })
        .openapi({ description: "Who did it" }),
      operation: z.string().openapi({
        description:
          "The API's operationId (createRefund, cancelApplication, …), or the console's own action (signIn, addPerson, changeRole, …)",
        example: "createRefund",
      }),
      applicationId: z.string().optional(),
      totalPrice: Money()
        .optional()
        .openapi({ description: "The amount it moved or asked for (a refund's, an order's)" }),
      reason: z.string().optional(),
      subject: z
        .string()
        .optional()
        .openapi({ description: "What it was done to when not an application: a person, an event, a path" }),
      address: z.string().optional().openapi({ description: "The client's IP address" }),
      outcome: z.enum(AUDIT_OUTCOMES),
      code: z.string().optional().openapi({ description: "Why it was refused or failed: the error code" }),
    })
    .openapi("AuditEvent"),
);

type AuditEventView = Infer<typeof AuditEvent>;

export function presentAuditEvent(row: AuditEventRow, timeZone: string): AuditEventView {
  return {
    id: row.id,
    occurredAt: formatDateTime(row.occurredAt, timeZone),
    source: row.source as AuditEventView["source"],
    actor: {
      type: row.actorType as AuditEventView["actor"]["type"],
      ...(row.actorId !== null ? { id: row.actorId } : {}),
      ...(row.actorName !== null ? { name: row.actorName } : {}),
    },
    operation: row.operation,
    ...(row.applicationId !== null ? { applicationId: row.applicationId } : {}),
    ...(row.amount !== null && row.currency !== null
      ? { totalPrice: { amount: row.amount, currency: row.currency } }
      : {}),
    ...(row.reason !== null ? { reason: row.reason } : {}),
    ...(row.subject !== null ? { subject: row.subject } : {}),
    ...(row.address !== null ? { address: row.address } : {}),
    outcome: row.outcome as AuditEventView["outcome"],
    ...(row.code !== null ? { code: row.code } : {}),
  };
}
