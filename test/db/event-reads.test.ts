import { env } from "cloudflare:workers";
import { is, Placeholder } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { keysetQuery } from "../../src/collections/keyset";
import { partnerEvents, partnerNotificationsCollection } from "../../src/collections/notifications";
import { database } from "../../src/db/client";
import { attemptsOf } from "../../src/db/event-reads";
import { eventReads } from "../../src/db/events";
import { routedClient } from "../../src/db/routing";
import { partnersOnShard, signIn } from "../support/api";
import { generate, insert } from "../support/collections";
import { storeEvents } from "../support/events";

// SQL on `env.DB` directly: the partners are of shard 0 (the routing: test/db/shards.test.ts).
partnersOnShard(0);

describe("the delivery log's statements", () => {
  it("are the collection's keyset query for a page by id, its values as placeholders", () => {
    const db = database(env);
    const values: Record<string, unknown> = { partnerId: "P", cursor: "C", limit: 8 };
    for (const from of ["start", "after", "before"] as const) {
      const built = eventReads.partnerPage(db, from).toSQL();
      const cursor = from === "after" ? { after: "C" } : from === "before" ? { before: "C" } : {};
      const keyset = keysetQuery(db, partnerNotificationsCollection, partnerEvents("P"), {
        limit: 7,
        sort: [],
        filter: [],
        ...cursor,
      }).toSQL();
      expect(built.sql, from).toBe(keyset.sql);
      expect(
        built.params.map((p) => (is(p, Placeholder) ? values[p.name] : p)),
        from,
      ).toEqual(keyset.params);
    }
  });
});

describe("attemptsOf", () => {
  let events: string[];
  beforeAll(async () => {
    const partnerId = (await signIn()).partner.id;
    const applications = generate(2, 31);
    await insert(partnerId, applications);
    events = await storeEvents(
      applications.map((a) => ({ id: a.id, partnerId })),
      150,
      { attemptsEach: 2 },
    );
  });

  it("answers the attempts of the events given, oldest first, for more events than D1 binds parameters", async () => {
    // 149 of the 150 events, in another order: more ids than D1 binds parameters to one statement (100).
    const asked = events.slice(1).reverse();
    const attempts = await attemptsOf(routedClient(env.DB), asked);
    const stored = await env.DB.prepare("SELECT * FROM notification_attempts ORDER BY id").all<{
      id: string;
      event_id: string;
      attempted_at: number;
      http_status: number | null;
      error: string | null;
      duration_ms: number;
    }>();
    expect(attempts).toStrictEqual(
      stored.results
        .filter((a) => asked.includes(a.event_id))
        .map((a) => ({
          id: a.id,
          eventId: a.event_id,
          attemptedAt: a.attempted_at,
          httpStatus: a.http_status,
          error: a.error,
          durationMs: a.duration_ms,
        })),
    );
    expect(attempts).toHaveLength(298);
    expect(await attemptsOf(routedClient(env.DB), [])).toEqual([]);
  });

  it("reads each event's attempts by the (event_id, id) index", async () => {
    const { sql } = eventReads.attempts(database(env)).toSQL();
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .bind(JSON.stringify(events.slice(0, 3)))
      .all<{
        detail: string;
      }>();
    expect(plan.results.map((step) => step.detail).join("\n")).toContain("notification_attempts_event_idx");
  });
});
