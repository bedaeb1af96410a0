import { env } from "cloudflare:workers";
import { and, eq, fillPlaceholders, gte, inArray, lt, or, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { database } from "../../../src/db/client";
import { parameterize } from "../../../src/db/compiler";
import { applications } from "../../../src/db/schema";

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
