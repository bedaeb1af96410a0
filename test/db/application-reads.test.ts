import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { config } from "../../src/config";
import { aggregateFromRow, aggregateToWrite } from "../../src/db/aggregate-row";
import { applicationOwner, loadAggregate, loadPresented } from "../../src/db/application-reads";
import { applicationReads } from "../../src/db/applications";
import { database, withD1Session } from "../../src/db/client";
import { routedClient } from "../../src/db/routing";
import { presentApplication, presentOrder } from "../../src/routes/applications/present";
import { call, partnersOnShard, signIn } from "../support/api";
import { createApplication } from "../support/factories";
import { app, approved, put } from "../support/orders";

// SQL on `env.DB` directly: the partners are of shard 0 (the routing: test/db/shards.test.ts).
partnersOnShard(0);

const ctx = { timeZone: "Europe/Prague", baseUrl: "http://api.test", pepper: config(env).AUTH_PEPPER, shard: 0 };

/** Two applications that between them use every presented field: a refund, a document, split lines, a cancellation. */
async function storedApplications(token: string) {
  const returned = await approved(token);
  await put(token, `${app(returned)}/order/send`);
  const res = await put(token, `${app(returned)}/order/return`, {
    items: [{ code: "KB-01", quantity: 1 }],
    document: { type: "CREDIT_NOTE", file: btoa("%PDF-1.4 credit note"), description: "one keyboard back" },
  });
  expect(res.status).toBe(200);
  const cancelled = (await createApplication(token)).id;
  const cancel = await call("PUT", `${app(cancelled)}/cancel`, {
    token,
    body: { reason: "APPLICATION_CANCELLED_BY_CUSTOMER", customReason: "changed their mind" },
  });
  expect(cancel.status).toBe(200);
  return [returned, cancelled];
}

describe("loadPresented", () => {
  it("presents exactly what the whole aggregate presents, without the columns only writes need", async () => {
    const { token, partner } = await signIn();
    const db = routedClient(env.DB);
    for (const id of await storedApplications(token)) {
      const whole = (await loadAggregate(db, partner.id, id))!;
      const shown = (await loadPresented(db, partner.id, id))!;
      expect(await presentApplication(shown, ctx)).toEqual(await presentApplication(whole, ctx));
      expect(presentOrder(shown, ctx)).toEqual(presentOrder(whole, ctx));
      expect(shown.lines).toEqual(whole.lines);
      expect(shown.documents).toEqual(whole.documents);
      // The write path still reads what its guard and events need; the read does not carry it.
      expect(whole.application).toMatchObject({ partnerId: partner.id, version: expect.any(Number) });
      for (const internal of ["partnerId", "version", "eventSequence", "duplicateFingerprint", "customerEmail"]) {
        expect(shown.application).not.toHaveProperty(internal);
      }
    }
  });

  it("reads lines as the domain's lines: no application id or row times", async () => {
    const { token, partner } = await signIn();
    const id = await approved(token);
    const whole = (await loadAggregate(routedClient(env.DB), partner.id, id))!;
    expect(whole.lines.length).toBeGreaterThan(1);
    for (const line of whole.lines) {
      expect(line).not.toHaveProperty("applicationId");
      expect(line).not.toHaveProperty("createdAt");
      expect(line).not.toHaveProperty("updatedAt");
    }
  });

  it("answers null for another partner's application and for an unknown id", async () => {
    const { token, partner } = await signIn();
    const other = await signIn();
    const id = (await createApplication(token)).id;
    const db = routedClient(env.DB);
    expect(await loadPresented(db, partner.id, id)).not.toBeNull();
    expect(await loadPresented(db, other.partner.id, id)).toBeNull();
    expect(await loadPresented(db, partner.id, `${id}X`)).toBeNull();
  });
});

describe("the reads built ahead of time", () => {
  it("answer what Drizzle's own queries answer, value for value, without loading Drizzle", async () => {
    const { token, partner } = await signIn();
    const other = await signIn();
    const db = database(env);
    const ids = [...(await storedApplications(token)), `${(await createApplication(token)).id}X`];
    for (const id of ids) {
      for (const [partnerId, read] of [
        [partner.id, "aggregate"],
        [partner.id, "presented"],
        [other.partner.id, "aggregate"],
      ] as const) {
        const viaDrizzle = await applicationReads[read](db).prepare().execute({ applicationId: id, partnerId });
        const loaded = await (read === "aggregate" ? loadAggregate : loadPresented)(
          routedClient(env.DB),
          partnerId,
          id,
        );
        // Keys in the same order, values decoded alike (JSON columns, booleans, nested lines and documents).
        const expected = viaDrizzle
          ? read === "aggregate"
            ? aggregateToWrite(viaDrizzle as unknown as Parameters<typeof aggregateToWrite>[0])
            : aggregateFromRow(viaDrizzle)
          : null;
        expect(JSON.stringify(loaded)).toBe(JSON.stringify(expected));
      }
      const owner = await applicationReads.owner(db).prepare().get({ applicationId: id });
      expect(await applicationOwner(routedClient(env.DB), id)).toStrictEqual(owner ?? null);
    }
    expect(await applicationOwner(routedClient(env.DB), ids[0]!)).toStrictEqual({
      partnerId: partner.id,
      merchantName: expect.any(String),
    });
  });

  it("go to the request's D1 session, as Drizzle's queries do", async () => {
    const { token, partner } = await signIn();
    const { id } = await createApplication(token);
    const seen: string[] = [];
    const session = {
      prepare: (query: string) => {
        seen.push(query);
        return env.DB.prepare(query);
      },
      getBookmark: () => null,
    } as unknown as D1DatabaseSession;
    const shown = await withD1Session(env.DB, session, () => loadPresented(routedClient(env.DB), partner.id, id));
    expect(shown?.application.id).toBe(id);
    expect(seen).toEqual([expect.stringMatching(/^select "id", "type", .* from "applications"/)]);
  });
});
