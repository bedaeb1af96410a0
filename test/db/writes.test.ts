import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WRITE_TABLES } from "../../generated/statements";
import { database } from "../../src/db/client";
import type { WriteColumn } from "../../src/db/rows";
import { applications, documents, events, orderLines, refunds, shipments } from "../../src/db/schema";
import type { WriteTableName } from "../../src/db/statements";
import { deleteWhere, insertRows, updateWhere } from "../../src/db/writes";
import { newId } from "../../src/ids";
import { partnersOnShard, signIn } from "../support/api";
import { createApplication } from "../support/factories";

// SQL on `env.DB` directly: the partners are of shard 0 (the routing: test/db/shards.test.ts).
partnersOnShard(0);

/** Every column of a row as SQLite holds it, types included (a JSON "null" is not a NULL). */
async function stored(table: string, id: string) {
  const row = await env.DB.prepare(`SELECT * FROM ${table} WHERE id = ?`).bind(id).first<Record<string, unknown>>();
  const types = await env.DB.prepare(`SELECT * FROM ${table} WHERE id = ?`).bind(id).raw();
  return { ...row, id: undefined, types: JSON.stringify(types[0]?.map((v) => (v === null ? "null" : typeof v))) };
}

describe("insertRows", () => {
  it("stores exactly what Drizzle's own insert stores, JSON, booleans, NULLs and defaults included", async () => {
    const { token, partner } = await signIn();
    const source = await createApplication(token);
    const db = database(env);
    const app = await db.query.applications.findFirst({ where: (a, { eq }) => eq(a.id, source.id) });
    const lines = await db.query.orderLines.findMany({ where: (l, { eq }) => eq(l.applicationId, source.id) });
    const variants = [
      // The stored row as it came, and one with every nullable column null and the rest left to defaults.
      { ...app!, decisionReasons: ["AMOUNT_OVER_LIMIT"], agreementTermsAndConditions: false },
      { ...app!, decisionReasons: null, approvedAmount: null, decidedAt: null, refundedAmount: undefined },
    ];
    for (const [i, variant] of variants.entries()) {
      const [viaDrizzle, viaInsertRows] = [newId(), newId()];
      const fingerprint = (id: string) => (variant.duplicateFingerprint ? `${id}-${i}` : null);
      const row = (id: string) => ({ ...variant, id, duplicateFingerprint: fingerprint(id) });
      const line = (applicationId: string) => ({
        ...lines[0]!,
        id: `${applicationId}-L`,
        categories: i ? null : ["a", "b"],
      });
      const event = (applicationId: string) => ({
        id: `${applicationId}-E`,
        applicationId,
        partnerId: partner.id,
        sequence: 1,
        state: "PROCESSING",
        stateReason: "PROCESSING_REDIRECT_NEEDED",
        occurredAt: 1_795_000_000_000,
        nextAttemptAt: 1_795_000_000_000,
      });
      await db.batch([
        db.insert(applications).values(row(viaDrizzle)),
        db.insert(orderLines).values(line(viaDrizzle)),
        db.insert(events).values(event(viaDrizzle)),
      ]);
      await env.DB.batch([
        insertRows(env.DB, "applications", [row(viaInsertRows)]),
        insertRows(env.DB, "orderLines", [line(viaInsertRows)]),
        insertRows(env.DB, "events", [event(viaInsertRows)]),
      ]);
      const same = (a: Record<string, unknown>, b: Record<string, unknown>, ids: string[]) =>
        expect(JSON.parse(JSON.stringify(b).replaceAll(ids[1]!, "ID"))).toEqual(
          JSON.parse(JSON.stringify(a).replaceAll(ids[0]!, "ID")),
        );
      const ids = [viaDrizzle, viaInsertRows];
      same(await stored("applications", viaDrizzle), await stored("applications", viaInsertRows), ids);
      same(await stored("order_lines", `${viaDrizzle}-L`), await stored("order_lines", `${viaInsertRows}-L`), ids);
      same(await stored("events", `${viaDrizzle}-E`), await stored("events", `${viaInsertRows}-E`), ids);
    }
  });

  it("binds several rows into one statement, in order", async () => {
    const { token } = await signIn();
    const source = await createApplication(token);
    const db = database(env);
    const [line] = await db.query.orderLines.findMany({ where: (l, { eq }) => eq(l.applicationId, source.id) });
    const rows = [1, 2, 3].map((n) => ({ ...line!, id: `${source.id}-M${n}`, position: 10 + n, code: `M${n}` }));
    await env.DB.batch([insertRows(env.DB, "orderLines", rows)]);
    const found = await env.DB.prepare("SELECT code, position FROM order_lines WHERE id LIKE ? ORDER BY id")
      .bind(`${source.id}-M%`)
      .all();
    expect(found.results).toEqual([
      { code: "M1", position: 11 },
      { code: "M2", position: 12 },
      { code: "M3", position: 13 },
    ]);
  });
});

describe("updateWhere", () => {
  it("stores exactly what Drizzle's own update stores: JSON, booleans, NULLs, unset columns left alone", async () => {
    const { token } = await signIn();
    const db = database(env);
    const [viaDrizzle, viaUpdateWhere] = [await createApplication(token), await createApplication(token)];
    const ids = [viaDrizzle.id, viaUpdateWhere.id];
    const variants: Partial<typeof applications.$inferInsert>[] = [
      { state: "CANCELLED", decisionReasons: ["AMOUNT_OVER_LIMIT"], agreementTermsAndConditions: false },
      {
        approvedAmount: null,
        decisionReasons: null,
        customCancelReason: null,
        decidedAt: undefined,
        refundedAmount: 7,
      },
    ];
    for (const set of variants) {
      await db.update(applications).set(set).where(eq(applications.id, viaDrizzle.id));
      await env.DB.batch([updateWhere(env.DB, "applications", set, { id: viaUpdateWhere.id })]);
      const [a, b] = [await stored("applications", ids[0]!), await stored("applications", ids[1]!)];
      // The two were created apart: their order numbers (and so fingerprints) and times differ.
      const strip = (row: Record<string, unknown>, id: string) =>
        JSON.parse(
          JSON.stringify({
            ...row,
            order_details: 0,
            order_number: 0,
            duplicate_fingerprint: 0,
            created_at: 0,
            updated_at: 0,
            idle_since: 0,
            // The customer's deadline follows the creation time.
            expires_at: 0,
            next_due_at: 0,
          }).replaceAll(id, "ID"),
        );
      expect(strip(b, ids[1]!)).toEqual(strip(a, ids[0]!));
    }
    const lines = await db.query.orderLines.findMany({ where: (l, { eq }) => eq(l.applicationId, viaUpdateWhere.id) });
    const line = { sentDate: null, deliveryTrackingNumber: "T-1", quantity: 5, categories: ["x"] };
    await env.DB.batch([updateWhere(env.DB, "orderLines", line, { id: lines[0]!.id })]);
    expect(
      await env.DB.prepare(
        "SELECT sent_date, delivery_tracking_number, quantity, categories FROM order_lines WHERE id = ?",
      )
        .bind(lines[0]!.id)
        .first(),
    ).toEqual({ sent_date: null, delivery_tracking_number: "T-1", quantity: 5, categories: '["x"]' });
  });

  it("matches on every column given, so a stale version updates nothing", async () => {
    const { token } = await signIn();
    const { id } = await createApplication(token);
    const [result] = await env.DB.batch([
      updateWhere(env.DB, "applications", { refundedAmount: 1 }, { id, version: 99 }),
    ]);
    expect(result!.meta.changes).toBe(0);
    expect(await env.DB.prepare("SELECT refunded_amount FROM applications WHERE id = ?").bind(id).first()).toEqual({
      refunded_amount: 0,
    });
  });
});

/** The schema's table of each name the writes know. */
const TABLES: Record<WriteTableName, SQLiteTable> = {
  applications,
  orderLines,
  events,
  refunds,
  documents,
  shipments,
};

/** The SQL and values a statement was prepared and bound with, on the real binding. */
function recording() {
  const seen: { sql: string; params: unknown[] }[] = [];
  const client = {
    prepare: (sql: string) => ({
      bind: (...params: unknown[]) => {
        seen.push({ sql, params });
        return env.DB.prepare(sql).bind(...params);
      },
    }),
  } as unknown as D1Database;
  return { client, seen };
}

/** A value of the column's kind, null included. */
const columnValue = (column: WriteColumn) =>
  column.encoding === "json"
    ? fc.oneof(
        fc.constant(null),
        fc.array(fc.string(), { maxLength: 2 }),
        fc.dictionary(fc.string(), fc.integer(), { noNullPrototype: true }),
      )
    : column.encoding === "boolean"
      ? fc.oneof(fc.constant(null), fc.boolean())
      : fc.oneof(fc.constant(null), fc.string({ maxLength: 5 }), fc.integer());

/**
 * A row of the table: every column given, but a column with a default may be left out. (A column without
 * one left out is NULL either way, but Drizzle writes it into the SQL as `null` where the writes bind it:
 * the stored-row tests above compare that case.)
 */
const rowOf = (table: WriteTableName) =>
  fc.record(
    Object.fromEntries(
      WRITE_TABLES[table].columns.map((c) => [
        c.key,
        c.default === undefined ? columnValue(c) : fc.oneof(columnValue(c), fc.constant(undefined)),
      ]),
    ),
    { noNullPrototype: true },
  );

/** Columns to match on: the plain ones, as the writes match (ids, versions). */
const plainKeys = (table: WriteTableName) => WRITE_TABLES[table].columns.filter((c) => !c.encoding).map((c) => c.key);

describe("the writes' SQL", () => {
  const db = database(env);
  const table = fc.constantFrom(...(Object.keys(WRITE_TABLES) as WriteTableName[]));
  const column = (name: WriteTableName, key: string) => (TABLES[name] as unknown as Record<string, never>)[key]!;

  it("is Drizzle's insert, text and values, for any rows of any table", () => {
    fc.assert(
      fc.property(
        table.chain((name) => fc.tuple(fc.constant(name), fc.array(rowOf(name), { minLength: 1, maxLength: 3 }))),
        ([name, rows]) => {
          const { client, seen } = recording();
          insertRows(client, name, rows as never);
          const drizzle = db
            .insert(TABLES[name])
            .values(rows as never)
            .toSQL();
          expect(seen).toEqual([{ sql: drizzle.sql, params: drizzle.params }]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("is Drizzle's update and delete, text and values, whatever is set and matched, in any order", () => {
    const shape = table.chain((name) =>
      fc.tuple(
        fc.constant(name),
        fc
          .uniqueArray(fc.constantFrom(...WRITE_TABLES[name].columns), { minLength: 1, maxLength: 6 })
          .chain((set) => fc.tuple(...set.map((c) => fc.tuple(fc.constant(c.key), columnValue(c))))),
        fc
          .uniqueArray(fc.constantFrom(...plainKeys(name)), { minLength: 1, maxLength: 3 })
          .chain((keys) => fc.tuple(...keys.map((key) => fc.tuple(fc.constant(key), fc.string({ maxLength: 5 }))))),
      ),
    );
    fc.assert(
      fc.property(shape, ([name, set, match]) => {
        const { client, seen } = recording();
        const where = and(...match.map(([key, value]) => eq(column(name, key), value)));
        updateWhere(client, name, Object.fromEntries(set), Object.fromEntries(match));
        deleteWhere(client, name, Object.fromEntries(match));
        const update = db.update(TABLES[name]).set(Object.fromEntries(set)).where(where).toSQL();
        const remove = db.delete(TABLES[name]).where(where).toSQL();
        expect(seen).toEqual([
          { sql: update.sql, params: update.params },
          { sql: remove.sql, params: remove.params },
        ]);
      }),
      { numRuns: 300 },
    );
  });
});
