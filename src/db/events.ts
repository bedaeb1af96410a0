/**
 * The outbox of application events: what is due for delivery, the attempts, and the partner's view.
 * An event is PENDING until delivered (DELIVERED) or given up (FAILED); while PENDING its
 * `nextAttemptAt` says when it is due, which is what the queue's wake-ups and the sweep act on.
 */
import { and, asc, desc, eq, getTableColumns, gt, gte, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { AfterAttempt } from "../domain/notification-schedule";
import type { StoredSecrets } from "../domain/signing-secrets";
import type { WireProfile } from "../domain/wire-profile";
import type { Database } from "./client";
import { applications, type EventRow, events, notificationAttempts, notificationOutcomes, partners } from "./schema";

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

/**
 * A claimed event: what its mailbox needs to send it (src/mailbox/durable-object.ts), with no further
 * read. Plain data: it travels to the mailbox by RPC.
 */
export interface Delivery {
  event: Pick<
    EventRow,
    | "id"
    | "applicationId"
    | "partnerId"
    | "type"
    | "sequence"
    | "state"
    | "stateReason"
    | "expiresAt"
    | "occurredAt"
    | "failedAttempts"
  >;
  /** When the attempt was due: the event's `nextAttemptAt` when claimed. */
  due: number;
  /** The application's notificationEndpoint now (a change of it since the event occurred counts). */
  endpoint: string;
  /** The partner's secrets that sign it, sealed as stored: its API key and its signing secrets. */
  secrets: StoredSecrets & { apiKey: string };
  /** The shapes the partner reads its notifications in, as its profile is now. */
  wireProfile: WireProfile;
  /** No other claim of the event succeeds before then, nor does the sweep wake it up. */
  leaseUntil: number;
}

/** A wake-up to claim: its event, and the `nextAttemptAt` it was sent for (absent: whatever is due). */
export interface Wanted {
  eventId: string;
  due?: number | undefined;
}

/**
 * Claims the events wanted that are PENDING, due by `dueBy`, due when their wake-up says and held by
 * no lease, until `leaseUntil`, and answers them with all their delivery needs: one statement for any
 * number of events (an UPDATE … RETURNING whose subqueries read the endpoint and the partner's secrets).
 * An event not answered was delivered, failed, overtaken by a newer wake-up or is held by a lease: the
 * holder sends it. The ids and dues travel as one JSON parameter (D1 binds at most 100).
 */
export async function claimDeliveries(
  db: Database,
  wanted: readonly Wanted[],
  at: number,
  dueBy: number,
  leaseUntil: number,
): Promise<Delivery[]> {
  if (wanted.length === 0) return [];
  const pairs = JSON.stringify(wanted.map((w) => [w.eventId, w.due ?? null]));
  const application = sql`(SELECT ${applications.merchantUrls} ->> '$.notificationEndpoint' FROM ${applications} WHERE ${applications.id} = ${events.applicationId})`;
  const partner = (column: AnySQLiteColumn) =>
    sql`(SELECT ${column} FROM ${partners} WHERE ${partners.id} = ${events.partnerId})`;
  const rows = await db
    .update(events)
    .set({ deliveringUntil: leaseUntil })
    .where(
      and(
        sql`${events.id} IN (SELECT value ->> 0 FROM json_each(${pairs}))`,
        eq(events.status, "PENDING"),
        lte(events.nextAttemptAt, dueBy),
        // A wake-up sent for another time was overtaken (a retry scheduled anew, the sweep, a resend).
        sql`${events.nextAttemptAt} = coalesce((SELECT value ->> 1 FROM json_each(${pairs}) WHERE value ->> 0 = ${events.id} AND value ->> 1 IS NOT NULL), ${events.nextAttemptAt})`,
        or(isNull(events.deliveringUntil), lte(events.deliveringUntil, at)),
      ),
    )
    .returning({
      id: events.id,
      applicationId: events.applicationId,
      partnerId: events.partnerId,
      type: events.type,
      sequence: events.sequence,
      state: events.state,
      stateReason: events.stateReason,
      expiresAt: events.expiresAt,
      occurredAt: events.occurredAt,
      failedAttempts: events.failedAttempts,
      due: events.nextAttemptAt,
      endpoint: sql<string>`${application}`,
      apiKey: sql<string>`${partner(partners.apiKeyCiphertext)}`,
      current: sql<string | null>`${partner(partners.signingSecretCiphertext)}`,
      previous: sql<string | null>`${partner(partners.previousSigningSecretCiphertext)}`,
      previousUntil: sql<number | null>`${partner(partners.previousSigningSecretExpiresAt)}`,
      older: sql<string | null>`${partner(partners.olderSigningSecretCiphertext)}`,
      olderUntil: sql<number | null>`${partner(partners.olderSigningSecretExpiresAt)}`,
      wireProfile: sql<WireProfile>`${partner(partners.wireProfile)}`,
    });
  return rows.map(
    ({ due, endpoint, apiKey, current, previous, previousUntil, older, olderUntil, wireProfile, ...event }) => ({
      event,
      due: due!,
      endpoint,
      secrets: { apiKey, current, previous, previousUntil, older, olderUntil },
      wireProfile,
      leaseUntil,
    }),
  );
}

/** Ends the leases of claimed events that could not be handed to their mailbox: the next wake-up claims them. */
export async function releaseClaims(db: Database, eventIds: readonly string[]): Promise<void> {
  await db
    .update(events)
    .set({ deliveringUntil: null })
    .where(sql`${events.id} IN (SELECT value FROM json_each(${JSON.stringify(eventIds)}))`);
}

/**
 * Records an attempt and what follows it, and ends the event's lease: one statement, an INSERT into the
 * view `notification_outcomes`, whose trigger also keeps the event's latest attempts only (schema.ts).
 * `event.failedAttempts`, its count before the attempt, stays as it is when the attempt delivered.
 */
export async function recordOutcome(
  db: Database,
  attempt: Omit<AttemptRow, "error"> & { error: string | null },
  after: AfterAttempt,
  event: Pick<EventRow, "failedAttempts">,
): Promise<void> {
  const outcome = {
    status: after.status,
    nextAttemptAt: after.status === "PENDING" ? after.nextAttemptAt : null,
    failedAttempts: after.status === "DELIVERED" ? event.failedAttempts : after.failedAttempts,
    failureReason: after.status === "FAILED" ? after.failureReason : null,
    deliveredAt: after.status === "DELIVERED" ? after.deliveredAt : null,
  };
  const { id, eventId, attemptedAt, httpStatus, error, durationMs } = attempt;
  const row = { id, eventId, attemptedAt, httpStatus, error, durationMs, ...outcome };
  const keys = Object.keys(row) as (keyof typeof row)[];
  await db.run(
    sql`INSERT INTO ${notificationOutcomes} (${sql.join(
      keys.map((key) => sql.identifier(notificationOutcomes[key].name)),
      sql`, `,
    )}) VALUES (${sql.join(
      keys.map((key) => sql`${row[key]}`),
      sql`, `,
    )})`,
  );
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
