import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { database } from "../../../src/db/client";
import { insertRows, updateWhere } from "../../../src/db/compiler";
import { applications, events, orderLines } from "../../../src/db/schema";
import { newId } from "../../../src/ids";
import { signIn } from "../../support/api";
import { createApplication } from "../../support/factories";

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
        insertRows(db, applications, [row(viaInsertRows)]),
        insertRows(db, orderLines, [line(viaInsertRows)]),
        insertRows(db, events, [event(viaInsertRows)]),
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
    await env.DB.batch([insertRows(db, orderLines, rows)]);
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
      await env.DB.batch([updateWhere(db, applications, set, { id: viaUpdateWhere.id })]);
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
            // The customer's deadline follows the creation time.
            expires_at: 0,
            next_due_at: 0,
          }).replaceAll(id, "ID"),
        );
      expect(strip(b, ids[1]!)).toEqual(strip(a, ids[0]!));
    }
    const lines = await db.query.orderLines.findMany({ where: (l, { eq }) => eq(l.applicationId, viaUpdateWhere.id) });
    const line = { sentDate: null, deliveryTrackingNumber: "T-1", quantity: 5, categories: ["x"] };
    await env.DB.batch([updateWhere(db, orderLines, line, { id: lines[0]!.id })]);
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
    const db = database(env);
    const { id } = await createApplication(token);
    const [result] = await env.DB.batch([updateWhere(db, applications, { refundedAmount: 1 }, { id, version: 99 })]);
    expect(result!.meta.changes).toBe(0);
    expect(await env.DB.prepare("SELECT refunded_amount FROM applications WHERE id = ?").bind(id).first()).toEqual({
      refunded_amount: 0,
    });
  });
});

/** As the aggregate reads them (src/db/applications.ts): lines in order, documents without their content. */
