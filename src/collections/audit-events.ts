import { eq } from "drizzle-orm";
import { auditEvents } from "../db/schema";
import { ACTOR_TYPES, AUDIT_OUTCOMES, AUDIT_SOURCES } from "../domain/audit";
import { type Collection, EQUALITY_OPERATORS } from "./collection";
import { columnFilter, enumFilter, instantFilter, textValue } from "./filters";

/**
 * The partner's audit log (src/domain/audit.ts): sorted by id (the order it happened) or occurredAt,
 * filtered by operation, who, application, source, outcome and time, each on an index led by the partner.
 */
export const auditEventsCollection = {
  table: auditEvents,
  id: auditEvents.id,
  idKey: "id",
  sortable: { id: auditEvents.id, occurredAt: auditEvents.occurredAt },
  filterable: {
    operation: columnFilter(auditEvents.operation, EQUALITY_OPERATORS, textValue(64)),
    actorType: enumFilter(auditEvents.actorType, ACTOR_TYPES),
    actorId: columnFilter(auditEvents.actorId, EQUALITY_OPERATORS, textValue(64)),
    applicationId: columnFilter(auditEvents.applicationId, EQUALITY_OPERATORS, textValue(64)),
    source: enumFilter(auditEvents.source, AUDIT_SOURCES),
    outcome: enumFilter(auditEvents.outcome, AUDIT_OUTCOMES),
    occurredAt: instantFilter(auditEvents.occurredAt),
  },
} satisfies Collection<typeof auditEvents>;

export const partnerAuditEvents = (partnerId: string) => eq(auditEvents.partnerId, partnerId);
