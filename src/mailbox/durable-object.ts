import { DurableObject } from "cloudflare:workers";
import { now } from "../clock";
import type { Env } from "../config";
import type { Wanted } from "../db/events";
import type { Circuit } from "../domain/endpoint-circuit";
import { errorFields, log } from "../log";
import type { Attempted, ShardDelivery as Delivery } from "../notifications/delivery";
import { EARLY_MS, LEASE_MS, mailboxName } from "./client";

/** An attempt of ours that failed (D1 refused its outcome) this many times in a row fails its event. */
const MAX_ERRORS = 8;

/** What a mailbox holds, for operators and tests (docs/operations.md). */
export interface MailboxState {
  /** Its events, soonest due first (at most 100): held by a lease (in flight or claimed) or waiting. */
  entries: { eventId: string; due: number; leaseUntil: number | null }[];
  /** Attempts this instance has in flight (or is claiming events for). */
  inFlight: number;
  circuit: Circuit | null;
}

type Entry = { event_id: string; due: number; lease_until: number | null };

/**
 * The mailbox of one partner's notification endpoint (its origin; src/mailbox/client.ts names it): the
 * events due to it, in order, the attempts in flight, its circuit, and an alarm for its retries.
 *
 * Why an object: delivery needs a per-endpoint count that is exact and acts at once, and a queue
 * consumer cannot have one (it polled: a wake-up that found the endpoint busy came back 5 to 10 s
 * later, so a healthy endpoint got about 4 notifications per 5 s). One object per endpoint is a single
 * thread that owns its count: when an attempt ends, the next event due starts in the same turn. And
 * per partner: no other partner's endpoint, even on the same host, shares its slots or its circuit.
 *
 * The queue still brings every event (a wake-up written with it, the sweep's, a resend's): its consumer
 * claims a batch of them in D1 with one statement that also reads what they need (endpoint, sealed
 * secrets) and hands each to its mailbox (`accept`). The mailbox sends up to CONCURRENCY at once (one
 * while its circuit is half-open), records each outcome with one statement, and keeps an event that
 * must be tried again until its time (its alarm), claiming it again then: two D1 statements per
 * attempt. D1 stays the truth: a claim is a lease in the event's row, the sweep wakes up any PENDING
 * event overdue and unleased, and this object's storage (SQLite: its entries and its circuit) is only
 * what it needs to go on after an eviction: an attempt lost with an instance is claimed again when its
 * lease ends, and a mailbox whose storage is lost is refilled from D1 by the sweep.
 */
export class EndpointMailbox extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private schemaReady = false;
  /** Events this instance is attempting (or claiming): what storage cannot tell from a lost attempt. */
  private readonly running = new Set<string>();
  /** Claimed events this instance holds, ready to send; lost with it (claimed again once their lease ends). */
  private readonly claimed = new Map<string, Delivery>();
  /** The circuit as stored (undefined until read): this object is its only writer. */
  private circuit: Circuit | null | undefined;
  private alarmAt: number | null | undefined;
  /** The shard of this mailbox's partner (src/db/shards.ts), as stored (undefined until read). */
  private shard: number | undefined;
  /** The delivery code and the circuit's rules, loaded on first use: the Worker's entry exports this class. */
  private work!: typeof import("../notifications/delivery");
  private circuits!: typeof import("../domain/endpoint-circuit");

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
  }

  /** Takes claimed events and starts what is due, up to the free slots. */
  async accept(deliveries: Delivery[]): Promise<void> {
    await this.load();
    // A mailbox is one partner's: its events are all in its shard, kept for the claims made from here.
    const shard = deliveries[0]?.shard;
    if (shard !== undefined && shard !== this.storedShard()) {
      this.sql.exec(
        `INSERT INTO home (id, shard) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET shard = excluded.shard`,
        shard,
      );
      this.shard = shard;
    }
    for (const delivery of deliveries) {
      // A newer claim of an event held here (a resend, the sweep) replaces it: it goes after the attempt in flight.
      this.sql.exec(
        `INSERT INTO entries (event_id, due, lease_until, errors) VALUES (?, ?, ?, 0)
         ON CONFLICT (event_id) DO UPDATE SET due = excluded.due, lease_until = excluded.lease_until, errors = 0`,
        delivery.event.id,
        delivery.due,
        delivery.leaseUntil,
      );
      this.claimed.set(delivery.event.id, delivery);
    }
    this.pump();
  }

  state(): MailboxState {
    this.ensureSchema();
    const entries = this.sql
      .exec<Entry>(`SELECT event_id, due, lease_until FROM entries ORDER BY due, event_id LIMIT 100`)
      .toArray()
      .map((e) => ({ eventId: e.event_id, due: e.due, leaseUntil: e.lease_until }));
    return { entries, inFlight: this.running.size, circuit: this.storedCircuit() };
  }

  /** Retries fall due, and leases end: an attempt lost with an earlier instance is claimed again. */
  override async alarm(): Promise<void> {
    await this.load();
    this.alarmAt = undefined;
    const at = now();
    for (const entry of this.sql.exec<Entry>(`SELECT event_id FROM entries WHERE lease_until <= ?`, at).toArray()) {
      // Still running here (a slow recording): its lease goes on. Otherwise the event waits for a slot.
      const lease = this.running.has(entry.event_id) ? at + LEASE_MS : null;
      this.sql.exec(`UPDATE entries SET lease_until = ? WHERE event_id = ?`, lease, entry.event_id);
    }
    this.pump();
  }

  private async load(): Promise<void> {
    this.work ??= await import("../notifications/delivery");
    this.circuits ??= await import("../domain/endpoint-circuit");
    this.ensureSchema();
  }

  private ensureSchema(): void {
    if (this.schemaReady) return;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS entries (event_id TEXT PRIMARY KEY, due INTEGER NOT NULL,
      lease_until INTEGER, errors INTEGER NOT NULL DEFAULT 0)`);
    this.sql.exec(`CREATE INDEX IF NOT EXISTS entries_due ON entries (due, event_id)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS circuit (id INTEGER PRIMARY KEY CHECK (id = 1),
      consecutive_failures INTEGER NOT NULL, open_until INTEGER, last_failure TEXT NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS home (id INTEGER PRIMARY KEY CHECK (id = 1), shard INTEGER NOT NULL)`);
    this.schemaReady = true;
  }

  /**
   * Starts the events due, soonest first, while slots are free: one this instance holds claimed at
   * once, the others (retries, and events whose claim was lost) after claiming them together. Then sets
   * the alarm. Synchronous: two turns never count the same slot.
   */
  private pump(): void {
    const at = now();
    const free = this.circuits.deliverySlots(this.storedCircuit(), at) - this.running.size;
    if (free > 0) {
      // Due, and either held here or free of a lease (a lease held by a lost instance ends first: the alarm).
      const due = this.sql
        .exec<Entry>(
          `SELECT event_id, due, lease_until FROM entries WHERE due <= ? AND (lease_until IS NULL OR lease_until <= ?
           OR event_id IN (SELECT value FROM json_each(?))) ORDER BY due, event_id LIMIT ?`,
          at + EARLY_MS,
          at,
          JSON.stringify([...this.claimed.keys()]),
          free + this.running.size,
        )
        .toArray()
        .filter((entry) => !this.running.has(entry.event_id))
        .slice(0, free);
      const toClaim: Wanted[] = [];
      for (const entry of due) {
        const held = this.claimed.get(entry.event_id);
        if (held?.due === entry.due) this.start(held, at);
        else {
          toClaim.push({ eventId: entry.event_id, due: entry.due });
          this.running.add(entry.event_id);
        }
      }
      if (toClaim.length > 0) void this.claimAndStart(toClaim, at);
    }
    this.schedule(at);
  }

  private start(delivery: Delivery, at: number): void {
    this.running.add(delivery.event.id);
    this.sql.exec(`UPDATE entries SET lease_until = ? WHERE event_id = ?`, at + LEASE_MS, delivery.event.id);
    void this.run(delivery, at);
  }

  private async run(delivery: Delivery, at: number): Promise<void> {
    let attempted: Attempted | undefined;
    try {
      attempted = await this.work.attempt(this.env, delivery, this.storedCircuit(), at);
    } catch (error) {
      log("warn", "notification attempt not recorded; tried again", {
        eventId: delivery.event.id,
        ...errorFields(error),
      });
    }
    this.running.delete(delivery.event.id);
    // Its claim is spent; a newer one of the event (with another due) stays, to go next.
    if (this.claimed.get(delivery.event.id)?.due === delivery.due) this.claimed.delete(delivery.event.id);
    if (attempted) this.settle(delivery, attempted);
    else await this.failed(delivery);
    this.pump();
  }

  /** After an attempt: the event leaves, or waits for its retry; unless a newer claim of it came meanwhile. */
  private settle(delivery: Delivery, { after, sent }: Attempted): void {
    if (sent) this.countAnswer(delivery, sent);
    const mine = [delivery.event.id, delivery.due] as const;
    if (after.status === "PENDING") {
      this.sql.exec(
        `UPDATE entries SET due = ?, lease_until = NULL, errors = 0 WHERE event_id = ? AND due = ?`,
        after.nextAttemptAt,
        ...mine,
      );
    } else this.sql.exec(`DELETE FROM entries WHERE event_id = ? AND due = ?`, ...mine);
  }

  /**
   * An attempt whose outcome could not be recorded (D1 failed): tried again, claimed anew, once its lease
   * ends; after MAX_ERRORS in a row the event fails, as the dead-letter queue fails one the consumer
   * could not process.
   */
  private async failed(delivery: Delivery): Promise<void> {
    const [row] = this.sql
      .exec<{ errors: number }>(
        `UPDATE entries SET lease_until = ?, errors = errors + 1 WHERE event_id = ? AND due = ? RETURNING errors`,
        now() + LEASE_MS,
        delivery.event.id,
        delivery.due,
      )
      .toArray();
    if (!row || row.errors < MAX_ERRORS) return;
    try {
      await this.work.failForGood(this.env, delivery.shard, delivery.event.id);
      this.sql.exec(`DELETE FROM entries WHERE event_id = ? AND due = ?`, delivery.event.id, delivery.due);
    } catch (error) {
      log("warn", "a notification that keeps failing could not be failed; tried again", {
        eventId: delivery.event.id,
        ...errorFields(error),
      });
    }
  }

  /**
   * Claims the events given, in one statement, and starts them. One claimed for another mailbox (the
   * application's endpoint changed) goes there; one not claimed left this one (delivered, resent or
   * woken by the sweep: its wake-up brings it back) or is held by another claim.
   */
  private async claimAndStart(wanted: Wanted[], at: number): Promise<void> {
    let deliveries: Delivery[];
    try {
      deliveries = await this.work.claim(this.env, this.storedShard(), wanted, at);
    } catch (error) {
      log("warn", "a mailbox could not claim its events; tried again", {
        events: wanted.length,
        ...errorFields(error),
      });
      for (const { eventId, due } of wanted) {
        this.running.delete(eventId);
        this.sql.exec(`UPDATE entries SET lease_until = ? WHERE event_id = ? AND due = ?`, at + LEASE_MS, eventId, due);
      }
      this.pump();
      return;
    }
    for (const { eventId } of wanted) this.running.delete(eventId);
    const claimed = new Set(deliveries.map((d) => d.event.id));
    const elsewhere = deliveries.filter((d) => !this.holds(d));
    for (const { eventId, due } of wanted) {
      if (!claimed.has(eventId) || elsewhere.some((d) => d.event.id === eventId)) {
        this.sql.exec(`DELETE FROM entries WHERE event_id = ? AND due = ?`, eventId, due);
      }
    }
    for (const delivery of deliveries) {
      if (elsewhere.includes(delivery)) continue;
      // Unless a newer claim of the event (a resend's) replaced the entry meanwhile: that one goes.
      const held = this.sql.exec(
        `UPDATE entries SET lease_until = ? WHERE event_id = ? AND due = ? RETURNING event_id`,
        delivery.leaseUntil,
        delivery.event.id,
        delivery.due,
      );
      if (held.toArray().length > 0) this.claimed.set(delivery.event.id, delivery);
    }
    this.pump();
    if (elsewhere.length > 0) await this.work.handOverOrRelease(this.env, this.storedShard(), elsewhere);
  }

  /** Whether the delivery is this mailbox's: its partner's, to this origin. */
  private holds(delivery: Delivery): boolean {
    const { ENDPOINT_MAILBOXES: mailboxes } = this.env;
    return mailboxes.idFromName(mailboxName(delivery.event.partnerId, delivery.endpoint)).equals(this.ctx.id);
  }

  /** The circuit after a POST that was sent: every outcome counts against the circuit as it is now. */
  private countAnswer(delivery: Delivery, sent: NonNullable<Attempted["sent"]>): void {
    const before = this.storedCircuit();
    const after = this.circuits.circuitAfter(before, sent, sent.finishedAt);
    if (after?.openUntil && !this.circuits.isOpen(before, sent.finishedAt)) {
      log("warn", "notification endpoint circuit open", {
        mailbox: mailboxName(delivery.event.partnerId, delivery.endpoint),
        failures: after.consecutiveFailures,
      });
    }
    this.saveCircuit(after);
  }

  /** The partner's shard; a mailbox from before shards stored none: its partner is of shard 0. */
  private storedShard(): number {
    if (this.shard === undefined) {
      this.ensureSchema();
      this.shard = this.sql.exec<{ shard: number }>(`SELECT shard FROM home`).toArray()[0]?.shard ?? 0;
    }
    return this.shard;
  }

  private storedCircuit(): Circuit | null {
    if (this.circuit === undefined) {
      this.ensureSchema();
      const row = this.sql
        .exec<{ consecutive_failures: number; open_until: number | null; last_failure: string }>(
          `SELECT consecutive_failures, open_until, last_failure FROM circuit`,
        )
        .toArray()[0];
      this.circuit = row
        ? { consecutiveFailures: row.consecutive_failures, openUntil: row.open_until, lastFailure: row.last_failure }
        : null;
    }
    return this.circuit;
  }

  private saveCircuit(circuit: Circuit | null): void {
    if (circuit === null && this.storedCircuit() === null) return;
    if (circuit === null) this.sql.exec(`DELETE FROM circuit`);
    else {
      this.sql.exec(
        `INSERT INTO circuit (id, consecutive_failures, open_until, last_failure) VALUES (1, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET consecutive_failures = excluded.consecutive_failures,
         open_until = excluded.open_until, last_failure = excluded.last_failure`,
        circuit.consecutiveFailures,
        circuit.openUntil,
        circuit.lastFailure,
      );
    }
    this.circuit = circuit;
  }

  /**
   * The alarm at the soonest of: a lease's end (an attempt or a claim that may be lost), a retry's time.
   * Events due now and waiting for a slot need none: a slot frees when an attempt in flight ends, and
   * that attempt's lease holds an alarm should its instance be lost first.
   */
  private schedule(at: number): void {
    const { next } = this.sql
      .exec<{ next: number | null }>(
        `SELECT MIN(CASE WHEN lease_until IS NOT NULL THEN lease_until ELSE due END) AS next FROM entries
         WHERE lease_until IS NOT NULL OR due > ?`,
        at + EARLY_MS,
      )
      .one();
    if (next === this.alarmAt) return;
    this.alarmAt = next;
    // Not awaited: the output gate holds every answer until the alarm is stored (as RateLimiter's).
    void (next === null ? this.ctx.storage.deleteAlarm() : this.ctx.storage.setAlarm(next));
  }
}
