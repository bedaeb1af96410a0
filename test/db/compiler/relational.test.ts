import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type Database, database } from "../../../src/db/client";
import { preparedRelational } from "../../../src/db/compiler";
import { applications, documents, orderLines } from "../../../src/db/schema";
import { partnersOnShard, signIn } from "../../support/api";
import { createApplication } from "../../support/factories";

// SQL on `env.DB` directly: the partners are of shard 0 (the routing: test/db/shards.test.ts).
partnersOnShard(0);

const WITH_LINES_AND_DOCUMENTS = {
  lines: { orderBy: (l, { asc }) => [asc(l.position), asc(l.id)] },
  documents: { columns: { id: true, type: true, filename: true, description: true } },
} satisfies NonNullable<Parameters<Database["query"]["applications"]["findFirst"]>[0]>["with"];

const eqId = (id: string) => eq(applications.id, id);

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
