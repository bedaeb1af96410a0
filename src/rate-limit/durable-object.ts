import { DurableObject } from "cloudflare:workers";
import type { WireProfile } from "../domain/wire-profile";

export interface Quota {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  reset: number;
}

export interface SessionRecord {
  partnerId: string;
  expiresAt: number;
  /** The partner's wire profile when the token was issued: its answers keep it until the token ends. */
  wireProfile: WireProfile;
  /** The shard holding the partner's data (src/db/shards.ts): every request of the token goes there. */
  shard: number;
}

/** A console sign-in (src/console/session.ts): whose it is, and when it ends. */
export interface ConsoleSessionRecord {
  partnerId: string;
  /** The partner's shard (src/db/shards.ts): the console's requests go there. */
  shard: number;
  /** It ends then unless it is used before: each use moves this on, never past `expiresAt`. */
  idleUntil: number;
  /** The absolute end, however busy the session. */
  expiresAt: number;
}

/**
 * A person's console sign-in (src/console/session.ts), kept in the one object of that person beside their
 * other sessions, so that they can be listed and ended together ("sign out everywhere", removal).
 */
export interface PersonSessionRecord {
  /** SHA-256 of the session's secret: the object never holds the secret itself. */
  idHash: string;
  partnerId: string;
  /** The partner's shard (src/db/shards.ts): the console's requests go there. */
  shard: number;
  personId: string;
  startedAt: number;
  /** Moves on with each use, never past `expiresAt`. */
  idleUntil: number;
  expiresAt: number;
  /** Where and with what it signed in, for the person's list. */
  address: string | null;
  userAgent: string | null;
}

/** The most sessions a person keeps: a new sign-in beyond them ends the oldest. */
export const PERSON_SESSIONS_KEPT = 20;

/** The answer to a login attempt: counted (with a ticket that releases it on success) or refused. */
export type AttemptVerdict = { allowed: true; ticket: number } | { allowed: false; retryAfter: number };

export interface HitResult extends Quota {
  /** The token's session; null when the object holds none or it has expired or been revoked. */
  session: SessionRecord | null;
  /** The D1 bookmark of the token's latest write, so that its next reads see it (read replicas). */
  bookmark: string | null;
}

/**
 * One object per rate-limited subject: an access token (named by the token's hash, never the token), a
 * client address, or a login user name or address; and one per console session (named by the hash of
 * its id), which holds that session only. It counts requests in fixed windows and, for tokens,
 * also holds the session written at login, so that authenticating and rate-limiting a request is a
 * single RPC and no D1 query. For logins it keeps each counted attempt with its expiry: a sliding window.
 *
 * Every method is synchronous SQL with no await before its answer, so calls run one after another and
 * counts are exact under any concurrency; SQLite storage keeps them across eviction. The caller passes
 * `now`, so the Worker's clock (and a test's) is the only clock.
 */
export class RateLimiter extends DurableObject {
  private readonly sql: SqlStorage;
  private schemaReady = false;
  private sessionRead = false;
  /**
   * The stored session, read once per instance: this object is its only writer, and every method runs
   * to completion without an await, so the copy cannot go stale (revocation is still exact). It saves
   * a query on every request.
   */
  private session: SessionRecord | null = null;
  private bookmark: string | null = null;
  /** Whether the console's table exists: only console objects have one (created by their sign-in). */
  private consoleTable: boolean | undefined;
  /** Whether the person sessions' table exists: only a person's object has one. */
  private personTable: boolean | undefined;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
  }

  /**
   * The tables, created by the first write, never by a read: a request with a made-up token reaches the
   * object named by its hash, and must leave nothing stored there. Also after the alarm's deleteAll(),
   * which drops the tables under a still-running instance.
   */
  private ensureSchema(): void {
    if (this.schemaReady) return;
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS windows (start INTEGER PRIMARY KEY, end INTEGER NOT NULL, count INTEGER NOT NULL)`,
    );
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS session (id INTEGER PRIMARY KEY CHECK (id = 1), partner_id TEXT NOT NULL, expires_at INTEGER NOT NULL,
       wire_profile TEXT NOT NULL DEFAULT 'DEFAULT', shard INTEGER NOT NULL DEFAULT 0)`,
    );
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS attempts (id INTEGER PRIMARY KEY AUTOINCREMENT, expires_at INTEGER NOT NULL)`,
    );
    this.sql.exec(`CREATE TABLE IF NOT EXISTS bookmark (id INTEGER PRIMARY KEY CHECK (id = 1), value TEXT NOT NULL)`);
    this.schemaReady = true;
    this.readSession();
  }

  /** The stored session, if the tables exist at all (they are created together). */
  private readSession(): void {
    if (this.sessionRead) return;
    const exists =
      this.schemaReady || this.sql.exec(`SELECT 1 FROM sqlite_master WHERE name = 'session'`).toArray().length > 0;
    // `*`: a session stored before wire profiles (or shards) existed has no such column, and is answered
    // DEFAULT (shard 0, where every partner was). Only a new token's object opens a session, so such a
    // table is never written again.
    const row = exists
      ? this.sql
          .exec<{ partner_id: string; expires_at: number; wire_profile?: WireProfile; shard?: number }>(
            `SELECT * FROM session`,
          )
          .toArray()[0]
      : undefined;
    this.session = row
      ? {
          partnerId: row.partner_id,
          expiresAt: row.expires_at,
          wireProfile: row.wire_profile ?? "DEFAULT",
          shard: row.shard ?? 0,
        }
      : null;
    // Objects created before bookmarks existed have no such table until their next write.
    const hasBookmarks =
      exists && this.sql.exec(`SELECT 1 FROM sqlite_master WHERE name = 'bookmark'`).toArray().length > 0;
    this.bookmark = hasBookmarks
      ? (this.sql.exec<{ value: string }>(`SELECT value FROM bookmark`).toArray()[0]?.value ?? null)
      : null;
    this.schemaReady ||= hasBookmarks;
    this.sessionRead = true;
  }

  /**
   * Counts one request and answers the quota. With `requireSession`, an object that holds no live
   * session answers `session: null` without counting: the request is then counted against the client
   * address instead, and a random token cannot create state here.
   */
  hit(now: number, limit: number, windowSeconds: number, requireSession = false): HitResult {
    this.readSession();
    const session = this.liveSession(now);
    if (requireSession && !session) {
      return { ...this.quota(now, limit, windowSeconds, 0), session: null, bookmark: null };
    }
    this.ensureSchema();
    const start = windowStart(now, windowSeconds);
    const end = start + windowSeconds * 1000;
    const row = this.sql
      .exec<{ count: number }>(
        `INSERT INTO windows (start, end, count) VALUES (?, ?, 1)
         ON CONFLICT (start) DO UPDATE SET count = count + 1 RETURNING count`,
        start,
        end,
      )
      .one();
    if (row.count === 1) this.scheduleCleanup(end);
    return {
      ...this.quota(now, limit, windowSeconds, row.count),
      allowed: row.count <= limit,
      session,
      bookmark: session ? this.bookmark : null,
    };
  }

  /**
   * The login throttle: counts an attempt before its password is checked, or refuses it when `limit`
   * attempts already count within the last `windowSeconds` (a sliding window: no burst across a window
   * boundary). Checking and counting are one synchronous step, so parallel attempts are counted exactly:
   * at most `limit` of them ever reach the password check. A successful login releases its attempt
   * (`release`); a failed one stays counted until it expires.
   */
  attempt(now: number, limit: number, windowSeconds: number): AttemptVerdict {
    this.ensureSchema();
    this.sql.exec(`DELETE FROM attempts WHERE expires_at <= ?`, now);
    const { count, first } = this.sql
      .exec<{ count: number; first: number | null }>(`SELECT COUNT(*) AS count, MIN(expires_at) AS first FROM attempts`)
      .one();
    if (count >= limit) return { allowed: false, retryAfter: Math.max(1, Math.ceil((first! - now) / 1000)) };
    const expiresAt = now + windowSeconds * 1000;
    const { id } = this.sql
      .exec<{ id: number }>(`INSERT INTO attempts (expires_at) VALUES (?) RETURNING id`, expiresAt)
      .one();
    this.scheduleCleanup(expiresAt);
    return { allowed: true, ticket: id };
  }

  /** A login that succeeded (or was refused elsewhere before any password check) does not count. */
  release(ticket: number): void {
    this.ensureSchema();
    this.sql.exec(`DELETE FROM attempts WHERE id = ?`, ticket);
  }

  openSession(session: SessionRecord): void {
    this.ensureSchema();
    this.sql.exec(
      `INSERT INTO session (id, partner_id, expires_at, wire_profile, shard) VALUES (1, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET partner_id = excluded.partner_id, expires_at = excluded.expires_at,
       wire_profile = excluded.wire_profile, shard = excluded.shard`,
      session.partnerId,
      session.expiresAt,
      session.wireProfile,
      session.shard,
    );
    const { partnerId, expiresAt, wireProfile, shard } = session;
    this.session = { partnerId, expiresAt, wireProfile, shard };
    this.scheduleCleanup(session.expiresAt);
  }

  /**
   * Keeps the D1 bookmark of a write made with this token, if it is newer than the one kept: bookmarks
   * sort from oldest to newest, so concurrent writes leave the latest whatever order they arrive in.
   * `shard` is the shard the write went to.
   */
  remember(bookmark: string, shard = 0): void {
    this.readSession();
    if (!this.session || (this.bookmark !== null && this.bookmark >= bookmark)) return;
    // A write of the shard its partner has just been moved off (moveSession): its bookmark means nothing now.
    if (this.session.shard !== shard) return;
    this.ensureSchema();
    this.sql.exec(
      `INSERT INTO bookmark (id, value) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET value = excluded.value`,
      bookmark,
    );
    this.bookmark = bookmark;
  }

  /**
   * The token's partner was moved to `shard` (src/db/partner-move.ts): its next request goes there. The
   * bookmark is the old shard's, meaningless on the new one, and goes too.
   */
  moveSession(partnerId: string, shard: number): void {
    this.readSession();
    if (!this.session || this.session.partnerId !== partnerId) return;
    this.ensureSchema();
    try {
      this.sql.exec(`UPDATE session SET shard = ?`, shard);
    } catch {
      // A session stored before shards has no such column: it ends, and the client logs in again.
      this.revokeSession();
      return;
    }
    this.sql.exec(`DELETE FROM bookmark`);
    this.session = { ...this.session, shard };
    this.bookmark = null;
  }

  revokeSession(): void {
    this.readSession();
    if (!this.schemaReady) return;
    this.sql.exec(`DELETE FROM session`);
    this.session = null;
  }

  /** A console sign-in: the object is named by the hash of a new session id, so it holds no other. */
  openConsoleSession(session: ConsoleSessionRecord): void {
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS console_session (id INTEGER PRIMARY KEY CHECK (id = 1), partner_id TEXT NOT NULL,
       idle_until INTEGER NOT NULL, expires_at INTEGER NOT NULL, shard INTEGER NOT NULL DEFAULT 0)`,
    );
    this.consoleTable = true;
    this.sql.exec(
      `INSERT INTO console_session (id, partner_id, idle_until, expires_at, shard) VALUES (1, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET partner_id = excluded.partner_id, idle_until = excluded.idle_until,
       expires_at = excluded.expires_at, shard = excluded.shard`,
      session.partnerId,
      session.idleUntil,
      session.expiresAt,
      session.shard,
    );
    this.scheduleCleanup(session.idleUntil);
  }

  /**
   * The console session, if it has neither been idle past its end nor reached its absolute end; using it
   * keeps it alive `idleMs` more. A session that ended is deleted here (its cookie may be sent again),
   * and a made-up session id finds nothing and stores nothing.
   */
  useConsoleSession(now: number, idleMs: number): ConsoleSessionRecord | null {
    if (!this.hasConsoleTable()) return null;
    // `*`: a session opened before shards existed has no such column: its partner is of shard 0.
    const row = this.sql
      .exec<{ partner_id: string; idle_until: number; expires_at: number; shard?: number }>(
        `SELECT * FROM console_session`,
      )
      .toArray()[0];
    if (!row) return null;
    if (row.idle_until <= now || row.expires_at <= now) {
      this.endConsoleSession();
      return null;
    }
    const idleUntil = Math.min(now + idleMs, row.expires_at);
    this.sql.exec(`UPDATE console_session SET idle_until = ?`, idleUntil);
    return { partnerId: row.partner_id, shard: row.shard ?? 0, idleUntil, expiresAt: row.expires_at };
  }

  endConsoleSession(): void {
    if (this.hasConsoleTable()) this.sql.exec(`DELETE FROM console_session`);
  }

  /** A person signs in: one more session in their object, the oldest ending beyond PERSON_SESSIONS_KEPT. */
  openPersonSession(session: PersonSessionRecord): void {
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS person_sessions (id_hash TEXT PRIMARY KEY, partner_id TEXT NOT NULL,
       person_id TEXT NOT NULL, started_at INTEGER NOT NULL, idle_until INTEGER NOT NULL, expires_at INTEGER NOT NULL,
       address TEXT, user_agent TEXT, shard INTEGER NOT NULL DEFAULT 0)`,
    );
    // A person's object outlives their sessions: one made before shards has the table without the column.
    // Sign-ins are rare enough to try adding it each time rather than keep a schema version.
    try {
      this.sql.exec(`ALTER TABLE person_sessions ADD COLUMN shard INTEGER NOT NULL DEFAULT 0`);
    } catch {
      // The column is there already.
    }
    this.personTable = true;
    this.sql.exec(
      `INSERT OR REPLACE INTO person_sessions
       (id_hash, partner_id, person_id, started_at, idle_until, expires_at, address, user_agent, shard)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      session.idHash,
      session.partnerId,
      session.personId,
      session.startedAt,
      session.idleUntil,
      session.expiresAt,
      session.address,
      session.userAgent,
      session.shard,
    );
    this.sql.exec(
      `DELETE FROM person_sessions WHERE id_hash NOT IN
       (SELECT id_hash FROM person_sessions ORDER BY started_at DESC LIMIT ?)`,
      PERSON_SESSIONS_KEPT,
    );
    this.scheduleCleanup(session.idleUntil);
  }

  /** The person's session, if it is live (as `useConsoleSession`); using it keeps it alive `idleMs` more. */
  usePersonSession(idHash: string, now: number, idleMs: number): PersonSessionRecord | null {
    const [session] = this.personSessionRows(`WHERE id_hash = ?`, idHash);
    if (!session) return null;
    if (session.idleUntil <= now || session.expiresAt <= now) {
      this.endPersonSession(idHash);
      return null;
    }
    const idleUntil = Math.min(now + idleMs, session.expiresAt);
    this.sql.exec(`UPDATE person_sessions SET idle_until = ? WHERE id_hash = ?`, idleUntil, idHash);
    return { ...session, idleUntil };
  }

  /** The person's live sessions, the latest sign-in first. */
  personSessions(now: number): PersonSessionRecord[] {
    return this.personSessionRows(`WHERE idle_until > ? AND expires_at > ? ORDER BY started_at DESC`, now, now);
  }

  endPersonSession(idHash: string): void {
    if (this.hasPersonTable()) this.sql.exec(`DELETE FROM person_sessions WHERE id_hash = ?`, idHash);
  }

  /** The person's partner was moved to `shard` (src/db/partner-move.ts): their sessions' pages go there. */
  movePersonSessions(partnerId: string, shard: number): void {
    if (this.hasPersonTable()) {
      this.sql.exec(`UPDATE person_sessions SET shard = ? WHERE partner_id = ?`, shard, partnerId);
    }
  }

  /** Ends every session of the person: "sign out everywhere", a reset of their sign-in, their removal. */
  endPersonSessions(): void {
    if (this.hasPersonTable()) this.sql.exec(`DELETE FROM person_sessions`);
  }

  private personSessionRows(where: string, ...bindings: SqlStorageValue[]): PersonSessionRecord[] {
    if (!this.hasPersonTable()) return [];
    return this.sql
      .exec<{
        id_hash: string;
        partner_id: string;
        person_id: string;
        started_at: number;
        idle_until: number;
        expires_at: number;
        address: string | null;
        user_agent: string | null;
        shard?: number;
      }>(`SELECT * FROM person_sessions ${where}`, ...bindings)
      .toArray()
      .map((row) => ({
        idHash: row.id_hash,
        partnerId: row.partner_id,
        shard: row.shard ?? 0,
        personId: row.person_id,
        startedAt: row.started_at,
        idleUntil: row.idle_until,
        expiresAt: row.expires_at,
        address: row.address,
        userAgent: row.user_agent,
      }));
  }

  private hasPersonTable(): boolean {
    this.personTable ??=
      this.sql.exec(`SELECT 1 FROM sqlite_master WHERE name = 'person_sessions'`).toArray().length > 0;
    return this.personTable;
  }

  private hasConsoleTable(): boolean {
    this.consoleTable ??=
      this.sql.exec(`SELECT 1 FROM sqlite_master WHERE name = 'console_session'`).toArray().length > 0;
    return this.consoleTable;
  }

  /** Drops finished windows and ended sessions; an object left with nothing deletes itself. */
  override async alarm(): Promise<void> {
    this.ensureSchema();
    const now = Date.now();
    this.sql.exec(`DELETE FROM windows WHERE end <= ?`, now);
    this.sql.exec(`DELETE FROM session WHERE expires_at <= ?`, now);
    this.sql.exec(`DELETE FROM attempts WHERE expires_at <= ?`, now);
    if (this.session && this.session.expiresAt <= now) this.session = null;
    // A console session's idle end is never past its absolute end, so it is the one that counts.
    const consoleSessions = this.hasConsoleTable();
    if (consoleSessions) this.sql.exec(`DELETE FROM console_session WHERE idle_until <= ?`, now);
    const personSessions = this.hasPersonTable();
    if (personSessions) this.sql.exec(`DELETE FROM person_sessions WHERE idle_until <= ?`, now);
    const next = this.sql
      .exec<{ at: number | null }>(
        `SELECT MIN(at) AS at FROM (SELECT end AS at FROM windows UNION ALL SELECT expires_at FROM session
         UNION ALL SELECT expires_at FROM attempts${consoleSessions ? " UNION ALL SELECT idle_until FROM console_session" : ""}${personSessions ? " UNION ALL SELECT idle_until FROM person_sessions" : ""})`,
      )
      .one().at;
    if (next === null) {
      await this.ctx.storage.deleteAll();
      this.schemaReady = false;
      this.consoleTable = undefined;
      this.personTable = undefined;
      this.session = null;
      this.bookmark = null;
    } else await this.ctx.storage.setAlarm(next);
  }

  private liveSession(now: number): SessionRecord | null {
    return this.session && this.session.expiresAt > now ? this.session : null;
  }

  private quota(now: number, limit: number, windowSeconds: number, count: number): Quota {
    const end = windowStart(now, windowSeconds) + windowSeconds * 1000;
    return {
      allowed: true,
      limit,
      remaining: Math.max(0, limit - count),
      reset: Math.max(1, Math.ceil((end - now) / 1000)),
    };
  }

  private scheduleCleanup(at: number): void {
    // Not awaited: the output gate holds the answer until the write is durable, and the alarm handler
    // reschedules for whatever is left, so overwriting an earlier alarm loses nothing.
    void this.ctx.storage.setAlarm(at);
  }
}

function windowStart(now: number, windowSeconds: number): number {
  const size = windowSeconds * 1000;
  return Math.floor(now / size) * size;
}
