import { env } from "cloudflare:workers";
import { and, eq, fillPlaceholders, gte, inArray, lt, or, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  type Database,
  database,
  insertRows,
  parameterize,
  preparedRelational,
  updateWhere,
  withD1Session,
} from "../../src/db/client";
import { applications, documents, events, orderLines } from "../../src/db/schema";
import { newId } from "../../src/ids";
import { signIn } from "../support/api";
import { createApplication } from "../support/factories";

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
const WITH_LINES_AND_DOCUMENTS = {
  lines: { orderBy: (l, { asc }) => [asc(l.position), asc(l.id)] },
  documents: { columns: { id: true, type: true, filename: true, description: true } },
} satisfies NonNullable<Parameters<Database["query"]["applications"]["findFirst"]>[0]>["with"];

describe("preparedRelational", () => {
  it("answers exactly what Drizzle's own relational query answers: keys, order, decoded values", async () => {
    const { token, partner } = await signIn();
    const db = database(env);
    const plain = await createApplication(token);
    const varied = await createApplication(token);
    const empty = await createApplication(token);
    // Every kind of value the mapping decodes: JSON arrays and NULL, booleans both ways, a cancellation,
    // documents with and without a description, an application without lines or documents.
    await db
      .update(applications)
      .set({ decisionReasons: ["AMOUNT_OVER_LIMIT"], agreementTermsAndConditions: false, cancelReason: "OTHER" })
      .where(eqId(varied.id));
    await db.update(orderLines).set({ categories: null }).where(eq(orderLines.applicationId, varied.id));
    await db.insert(documents).values(
      ["with", "without"].map((kind, i) => ({
        id: `${varied.id}-D${i}`,
        applicationId: varied.id,
        type: "INVOICE",
        filename: `${kind}.pdf`,
        mimeType: "application/pdf",
        content: "JVBERi0=",
        description: kind === "with" ? "Faktura" : null,
        size: 5,
        createdAt: 1_795_000_000_000 + i,
      })),
    );
    await db.delete(orderLines).where(eq(orderLines.applicationId, empty.id));

    const many = () =>
      db.query.applications.findMany({
        where: (a, { eq }) => eq(a.partnerId, sql.placeholder("partner")),
        orderBy: (a, { asc }) => [asc(a.id)],
        with: WITH_LINES_AND_DOCUMENTS,
      });
    const viaDrizzle = await many().prepare().execute({ partner: partner.id });
    const compiled = await preparedRelational(many())({ partner: partner.id });
    expect(compiled).toHaveLength(3);
    expect(JSON.stringify(compiled)).toBe(JSON.stringify(viaDrizzle));
    expect(compiled).toStrictEqual(viaDrizzle);

    const first = () =>
      db.query.applications.findFirst({
        where: (a, { eq }) => eq(a.id, sql.placeholder("id")),
        with: WITH_LINES_AND_DOCUMENTS,
      });
    for (const { id } of [plain, varied, empty]) {
      const one = await preparedRelational(first())({ id });
      expect(JSON.stringify(one)).toBe(JSON.stringify(await first().prepare().execute({ id })));
    }
    expect(await preparedRelational(first())({ id: "01JNOSUCHAPPLICATION000000" })).toBeUndefined();

    // A relation to one (a line with its application), the branch the aggregate itself does not take.
    const linesWithApplication = () =>
      db.query.orderLines.findMany({
        where: (l, { eq }) => eq(l.applicationId, sql.placeholder("id")),
        with: { application: { columns: { id: true, customer: true, decidedAt: true } } },
      });
    const lines = await preparedRelational(linesWithApplication())({ id: varied.id });
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.stringify(lines)).toBe(
      JSON.stringify(await linesWithApplication().prepare().execute({ id: varied.id })),
    );
  });

  it("refuses what is not a relational query, rather than map it wrongly", () => {
    const db = database(env);
    expect(() => preparedRelational(db.select().from(applications))).toThrow(/not a Drizzle relational query/);
  });
});

describe("withD1Session", () => {
  it("sends every query made inside it, prepared or built, alone or batched, to the given session", async () => {
    const db = database(env);
    const seen: string[] = [];
    const session = {
      prepare: (query: string) => {
        seen.push(query);
        return env.DB.prepare(query);
      },
      batch: (statements: D1PreparedStatement[]) => {
        seen.push(`batch of ${statements.length}`);
        return env.DB.batch(statements);
      },
      getBookmark: () => null,
    } as unknown as D1DatabaseSession;
    const { token } = await signIn();
    const { id } = await createApplication(token);
    await withD1Session(session, async () => {
      await db.select({ id: applications.id }).from(applications).where(eqId(id));
      await db.batch([db.select().from(applications).where(eqId(id)), db.select().from(orderLines).limit(1)]);
    });
    expect(seen).toEqual([
      expect.stringMatching(/^select "id" from "applications"/),
      expect.stringMatching(/^select .* from "applications"/),
      expect.stringMatching(/^select .* from "order_lines"/),
      "batch of 2",
    ]);
    // Outside it, queries go to the binding again.
    seen.length = 0;
    await db.select({ id: applications.id }).from(applications).where(eqId(id));
    expect(seen).toEqual([]);
  });
});

const eqId = (id: string) => eq(applications.id, id);

describe("parameterize", () => {
  /** Conditions as the lists build them: every kind of filter, `in` lists, the cursor's seek. */
  const conditions = (v: { id: string; partner: string; amount: number; at: number; states: string[] }) => [
    eq(applications.partnerId, v.partner),
    and(
      eq(applications.partnerId, v.partner),
      inArray(applications.state, v.states),
      gte(applications.createdAt, v.at),
      lt(applications.totalAmount, v.amount),
    )!,
    or(
      sql`instr(',' || ${applications.variableSymbols} || ',', ',' || ${String(v.amount)} || ',') > 0`,
      sql`${applications.id} > ${sql.param(v.id, applications.id)}`,
    )!,
    sql`(${applications.totalAmount}, ${applications.id}) < ((select ${applications.totalAmount} from ${applications} where ${eq(applications.id, v.id)}), ${v.id})`,
  ];
  const first = { id: "01A", partner: "p1", amount: 100, at: 1_700_000_000_000, states: ["READY", "PROCESSING"] };
  const second = { id: "01B", partner: "p2", amount: 7, at: 1_800_000_000_000, states: ["CANCELLED", "READY"] };

  it("its template renders Drizzle's own SQL, and its values are the parameters Drizzle binds", () => {
    const db = database(env);
    for (const condition of conditions(first)) {
      const direct = db.select().from(applications).where(condition).toSQL();
      const { template, values } = parameterize(condition, true);
      const viaTemplate = db.select().from(applications).where(template!).toSQL();
      expect(viaTemplate.sql).toBe(direct.sql);
      expect(fillPlaceholders(viaTemplate.params, values)).toEqual(direct.params);
    }
  });

  it("gives two conditions one shape exactly when they render the same SQL", () => {
    const db = database(env);
    const [a, b] = [conditions(first), conditions(second)];
    for (const [i, condition] of a.entries()) {
      expect(parameterize(condition).shape).toBe(parameterize(b[i]!).shape);
      for (const [j, other] of a.entries()) {
        const sameSql =
          db.select().from(applications).where(condition).toSQL().sql ===
          db.select().from(applications).where(other).toSQL().sql;
        expect(parameterize(condition).shape === parameterize(other).shape).toBe(sameSql);
        expect(i === j).toBe(sameSql);
      }
    }
    // One more value in an `in` list is another shape.
    const three = { ...first, states: ["READY", "PROCESSING", "CANCELLED"] };
    expect(parameterize(conditions(three)[1]!).shape).not.toBe(parameterize(a[1]!).shape);
  });
});
