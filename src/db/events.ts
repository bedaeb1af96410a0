/**
 * The outbox of application events: what is due for delivery, the attempts, and the partner's view.
 * An event is PENDING until delivered (DELIVERED) or given up (FAILED); while PENDING its
 * `nextAttemptAt` says when it is due, which is what the queue's wake-ups and the sweep act on.
 */
import { and, asc, desc, eq, getTableColumns, gt, gte, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Circuit } from "../domain/endpoint-circuit";
import type { AfterAttempt } from "../domain/notification-schedule";
import type { Database } from "./client";
import { applications, type EventRow, endpointCircuits, events, notificationAttempts, partners } from "./schema";

export type AttemptRow = typeof notificationAttempts.$inferSelect;

/**
 * The statements of the partner's delivery log and of the attempts of a page of events, built ahead of
 * time (src/db/statements.ts) and read without Drizzle (./event-reads.ts): the log's first request in an
 * isolate loads neither Drizzle nor the schema. A page in the log's own order (by id, unfiltered) is the
 * collection's keyset query (src/collections/keyset.ts) for that shape, with its values as placeholders;
 * test/db/event-reads.test.ts holds the two to the same SQL.
 */
export const eventReads = {
  /** A page of the partner's events by id: from the start, after the cursor, or before it (walking back). */
  partnerPage: (db: Database, from: "start" | "after" | "before") => {
    const partner = eq(events.partnerId, sql.placeholder("partnerId"));
    const cursor = sql.placeholder("cursor");
    const inScope = sql`exists (select 1 from ${events} where ${and(eq(events.id, cursor), partner)})`;
    const where =
      from === "start"
        ? partner
        : and(partner, inScope, from === "after" ? gt(events.id, cursor) : lt(events.id, cursor));
    return db
      .select()
      .from(events)
      .where(where)
      .orderBy(from === "before" ? desc(events.id) : asc(events.id))
      .limit(sql.placeholder("limit"));
  },
  /** The cursor, if it is one of the partner's events: an empty page tells an end from a foreign id so. */
  partnerEvent: (db: Database) =>
    db
      .select({ id: events.id })
      .from(events)
      .where(and(eq(events.id, sql.placeholder("cursor")), eq(events.partnerId, sql.placeholder("partnerId")))),
  /**
   * The attempts of the events given (a JSON array of ids: one statement for any number of them), oldest
   * first; the index (event_id, id) serves each event's.
   */
  attempts: (db: Database) =>
    db
      .select()
      .from(notificationAttempts)
      .where(sql`${notificationAttempts.eventId} in (select value from json_each(${sql.placeholder("eventIds")}))`)
      .orderBy(asc(notificationAttempts.id)),
};

/**
 * The console's view of the attempts of a page of events: the latest `perEvent` of each (oldest first)
 * and how many each has in all. An event retried for days, or resent again and again, keeps its page
 * short; the ids are the statement's only bound parameters (D1 binds at most 100).
 */
export async function latestAttemptsOf(
  db: Database,
  eventIds: readonly string[],
  perEvent: number,
): Promise<{ attempts: AttemptRow[]; counts: Map<string, number> }> {
  if (eventIds.length === 0) return { attempts: [], counts: new Map() };
  const { eventId, id } = notificationAttempts;
  const ranked = db
    .select({
      ...getTableColumns(notificationAttempts),
      newer: sql<number>`row_number() over (partition by ${eventId} order by ${id} desc)`.as("newer"),
      total: sql<number>`count(*) over (partition by ${eventId})`.as("total"),
    })
    .from(notificationAttempts)
    .where(inArray(eventId, [...eventIds]))
    .as("ranked");
  const rows = await db
    .select()
    .from(ranked)
    .where(sql`${ranked.newer} <= ${sql.raw(String(Math.trunc(perEvent)))}`)
    .orderBy(asc(ranked.id));
  const counts = new Map(rows.map((row) => [row.eventId, row.total]));
  return { attempts: rows.map(({ newer: _newer, total: _total, ...attempt }) => attempt), counts };
}

/** An event with where it goes and the partner's secrets (sealed) that sign it. */
export async function deliveryOf(db: Database, eventId: string) {
  const row = await db
    .select({
      event: events,
      merchantUrls: applications.merchantUrls,
      apiKeyCiphertext: partners.apiKeyCiphertext,
      signingSecretCiphertext: partners.signingSecretCiphertext,
      previousSigningSecretCiphertext: partners.previousSigningSecretCiphertext,
      previousSigningSecretExpiresAt: partners.previousSigningSecretExpiresAt,
      olderSigningSecretCiphertext: partners.olderSigningSecretCiphertext,
      olderSigningSecretExpiresAt: partners.olderSigningSecretExpiresAt,
    })
    .from(events)
    .innerJoin(applications, eq(applications.id, events.applicationId))
    .innerJoin(partners, eq(partners.id, applications.partnerId))
    .where(eq(events.id, eventId))
    .get();
  return row ?? null;
}

export type Delivery = NonNullable<Awaited<ReturnType<typeof deliveryOf>>>;

export interface DeliveryClaim {
  eventId: string;
  due: number;
  at: number;
  holdUntil: number;
  partnerId: string;
  /** The endpoint's origin. */
  endpoint: string;
  /** Deliveries that may be in flight at once for the partner, and for the endpoint. */
  partnerCap: number;
  endpointCap: number;
}

/** Deliveries holding an event at `at` (the partial indexes hold only held events). */
const inFlight = (column: typeof events.partnerId | typeof events.deliveringTo, value: string, at: number) =>
  sql`(SELECT COUNT(*) FROM ${events} WHERE ${column} = ${value} AND ${events.deliveringUntil} > ${at})`;

/**
 * Holds the event for one attempt until `holdUntil`, if it is still PENDING, due at `due` and held by
 * no other delivery: a second message for the same event can then not POST it a second time. Also only
 * while fewer than the caps are in flight for the partner and for the endpoint, so that one partner's
 * slow endpoint cannot take the slots every partner's deliveries share. Answers `claimed`, `busy` (a
 * cap is reached: try again shortly) or `gone` (delivered, overtaken or held by another delivery).
 */
export async function claimDelivery(db: Database, claim: DeliveryClaim): Promise<"claimed" | "busy" | "gone"> {
  const claimable = and(
    eq(events.id, claim.eventId),
    eq(events.status, "PENDING"),
    eq(events.nextAttemptAt, claim.due),
    or(isNull(events.deliveringUntil), sql`${events.deliveringUntil} <= ${claim.at}`),
  );
  const claimed = await db
    .update(events)
    .set({ deliveringUntil: claim.holdUntil, deliveringTo: claim.endpoint })
    .where(
      and(
        claimable,
        sql`${inFlight(events.partnerId, claim.partnerId, claim.at)} < ${claim.partnerCap}`,
        sql`${inFlight(events.deliveringTo, claim.endpoint, claim.at)} < ${claim.endpointCap}`,
      ),
    )
    .returning({ id: events.id });
  if (claimed.length > 0) return "claimed";
  const waiting = await db.select({ id: events.id }).from(events).where(claimable).get();
  return waiting ? "busy" : "gone";
}

/** The endpoint's circuit (null: closed, nothing recorded). */
export async function circuitOf(db: Database, endpoint: string): Promise<Circuit | null> {
  const row = await db
    .select({
      consecutiveFailures: endpointCircuits.consecutiveFailures,
      openUntil: endpointCircuits.openUntil,
      lastFailure: endpointCircuits.lastFailure,
    })
    .from(endpointCircuits)
    .where(eq(endpointCircuits.endpoint, endpoint))
    .get();
  return row ?? null;
}

/**
 * Records an attempt and what follows it, in one batch; the event's hold ends. With `circuit`, the
 * endpoint's circuit as the attempt leaves it (null: closed, its record goes).
 */
export async function recordAttempt(
  db: Database,
  attempt: Omit<AttemptRow, "error"> & { error: string | null },
  after: AfterAttempt,
  circuit?: { endpoint: string; state: Circuit | null },
): Promise<void> {
  const circuitWrite =
    circuit === undefined
      ? []
      : circuit.state === null
        ? [db.delete(endpointCircuits).where(eq(endpointCircuits.endpoint, circuit.endpoint))]
        : [
            db
              .insert(endpointCircuits)
              .values({ endpoint: circuit.endpoint, ...circuit.state, updatedAt: attempt.attemptedAt })
              .onConflictDoUpdate({
                target: endpointCircuits.endpoint,
                set: { ...circuit.state, updatedAt: attempt.attemptedAt },
              }),
          ];
  await db.batch([
    db.insert(notificationAttempts).values(attempt),
    db
      .update(events)
      .set({
        ...after,
        deliveringUntil: null,
        deliveringTo: null,
        ...(after.status === "PENDING" ? {} : { nextAttemptAt: null }),
      })
      .where(eq(events.id, attempt.eventId)),
    ...circuitWrite,
  ]);
}

/** The dead-letter queue's last word: an event the consumer could not process is FAILED (unless delivered meanwhile). */
export async function failEvent(db: Database, eventId: string, failureReason: string): Promise<void> {
  await db
    .update(events)
    .set({ status: "FAILED", failureReason, nextAttemptAt: null, deliveringUntil: null })
    .where(and(eq(events.id, eventId), eq(events.status, "PENDING")));
}

/**
 * The sweep's claim: up to `limit` PENDING events due before `overdueBefore` and not being delivered,
 * made due again at `due`, so that their lost or late wake-ups are dropped as stale and a second sweep
 * does not take them again before these messages had time to arrive.
 */
export async function claimOverdue(db: Database, overdueBefore: number, due: number, limit: number): Promise<string[]> {
  const claimed = await db
    .update(events)
    .set({ nextAttemptAt: due })
    .where(
      inArray(
        events.id,
        db
          .select({ id: events.id })
          .from(events)
          .where(
            and(
              eq(events.status, "PENDING"),
              lt(events.nextAttemptAt, overdueBefore),
              sql`(${events.deliveringUntil} IS NULL OR ${events.deliveringUntil} <= ${due})`,
            ),
          )
          .orderBy(asc(events.nextAttemptAt))
          .limit(limit),
      ),
    )
    .returning({ id: events.id });
  return claimed.map((e) => e.id);
}

/** A DELIVERED event is sent again at most once in this long (replay and resend alike). */
export const REDELIVERY_INTERVAL_MS = 60 * 60 * 1000;

/** Not a DELIVERED event sent again in the last REDELIVERY_INTERVAL_MS before `at`. */
const redeliverable = (at: number) =>
  or(
    sql`${events.status} <> 'DELIVERED'`,
    isNull(events.replayedAt),
    lt(events.replayedAt, at - REDELIVERY_INTERVAL_MS + 1),
  );

/**
 * Puts one event of the application back in delivery, due at `at`, with a new schedule. Answers the
 * event, `too_soon` with when it may be sent again (a DELIVERED event resent within the hour), or null
 * when there is none.
 */
export async function requeueEvent(
  db: Database,
  applicationId: string,
  eventId: string,
  at: number,
): Promise<EventRow | { tooSoonUntil: number } | null> {
  const mine = and(eq(events.id, eventId), eq(events.applicationId, applicationId));
  const [event] = await db
    .update(events)
    .set(again(at))
    .where(and(mine, redeliverable(at)))
    .returning();
  if (event) return event;
  const held = await db.select({ replayedAt: events.replayedAt }).from(events).where(mine).get();
  return held ? { tooSoonUntil: held.replayedAt! + REDELIVERY_INTERVAL_MS } : null;
}

export interface ReplaySelection {
  partnerId: string;
  status: "PENDING" | "DELIVERED" | "FAILED";
  /** Occurred at or after (Unix ms). */
  from: number;
  /** Occurred before (Unix ms). */
  to: number;
  applicationId?: string | undefined;
}

/** The partner's events matching `selection` that are not being delivered at `at`. */
function selected(selection: ReplaySelection, at: number) {
  return and(
    eq(events.partnerId, selection.partnerId),
    eq(events.status, selection.status),
    gte(events.occurredAt, selection.from),
    lt(events.occurredAt, selection.to),
    selection.applicationId === undefined ? undefined : eq(events.applicationId, selection.applicationId),
    // One in delivery right now keeps its delivery: replaying it would POST it twice.
    sql`(${events.deliveringUntil} IS NULL OR ${events.deliveringUntil} <= ${at})`,
    redeliverable(at),
  );
}

/** Puts the partner's events matching `selection` back in delivery, due at `at`, oldest first, at most `limit`. */
export async function replayEvents(
  db: Database,
  selection: ReplaySelection,
  at: number,
  limit: number,
): Promise<string[]> {
  const replayed = await db
    .update(events)
    .set(again(at))
    .where(
      inArray(
        events.id,
        db.select({ id: events.id }).from(events).where(selected(selection, at)).orderBy(asc(events.id)).limit(limit),
      ),
    )
    .returning({ id: events.id });
  return replayed.map((e) => e.id);
}

/** Whether any event still matches `selection` (after a replay that hit its limit). */
export async function anyEventMatching(db: Database, selection: ReplaySelection, at: number): Promise<boolean> {
  const row = await db.select({ id: events.id }).from(events).where(selected(selection, at)).limit(1).get();
  return row !== undefined;
}

/** A new delivery of an event: PENDING, due now, with the whole schedule ahead of it. */
const again = (at: number) => ({
  status: "PENDING",
  nextAttemptAt: at,
  failedAttempts: 0,
  failureReason: null,
  deliveringUntil: null,
  deliveringTo: null,
  deliveredAt: null,
  replayedAt: at,
});
