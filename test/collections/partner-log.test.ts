import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { PageRequest } from "../../src/collections/collection";
import { keysetPage } from "../../src/collections/keyset";
import { partnerEvents, partnerNotificationsCollection } from "../../src/collections/notifications";
import { partnerLogPage } from "../../src/collections/partner-log";
import { plainPageRequest } from "../../src/collections/query";
import { database } from "../../src/db/client";
import { routedClient } from "../../src/db/routing";
import { partnersOnShard, signIn } from "../support/api";
import { generate, insert } from "../support/collections";
import { storeEvents } from "../support/events";

// SQL on `env.DB` directly: the partners are of shard 0 (the routing: test/db/shards.test.ts).
partnersOnShard(0);

const LOG = "http://api.test/financing/v1/notifications";
let owner: string;
let ownEvents: string[];
let strangersEvent: string;

beforeAll(async () => {
  owner = (await signIn()).partner.id;
  const stranger = (await signIn()).partner.id;
  const own = generate(3, 21);
  const strangers = generate(2, 22);
  await insert(owner, own);
  await insert(stranger, strangers);
  // The two partners' events interleave: a page must skip the stranger's within its range.
  const ids = await storeEvents(
    [...own.map((a) => ({ id: a.id, partnerId: owner })), ...strangers.map((a) => ({ id: a.id, partnerId: stranger }))],
    23,
  );
  ownEvents = ids.filter((_, i) => i % 5 < 3);
  strangersEvent = ids[3]!;
});

/** The request as the log reads it from its URL: plain (no sort, no filter). */
function plain(params: { limit: number; after?: string; before?: string }): PageRequest {
  const request = plainPageRequest(`${LOG}?limit=${params.limit}`, params);
  if (!request?.ok) throw new Error(`not a plain page request: ${JSON.stringify(request)}`);
  return request.value;
}

/** The same page read both ways: without Drizzle, and by the collection's keyset query. */
async function bothWays(request: PageRequest) {
  const precompiled = await partnerLogPage(routedClient(env.DB), owner, request);
  const keyset = await keysetPage(database(env), partnerNotificationsCollection, partnerEvents(owner), request);
  expect(precompiled).toStrictEqual(keyset);
  return precompiled;
}

describe("partnerLogPage", () => {
  it("reads the pages the collection's keyset query reads, forward and back, at every page size", async () => {
    for (const limit of [1, 2, 3, 7, 20]) {
      const seen: string[] = [];
      let page = await bothWays(plain({ limit }));
      for (;;) {
        if (!page.ok) throw new Error(JSON.stringify(page.problems));
        seen.push(...page.value.rows.map((r) => r.id));
        if (!page.value.hasMoreAfter) break;
        page = await bothWays(plain({ limit, after: page.value.lastId! }));
      }
      expect(seen, `limit ${limit}`).toEqual(ownEvents);
      // And back from the end: the same events, each page in the log's order.
      const back: string[] = [];
      let cursor = ownEvents.at(-1)!;
      for (;;) {
        const previous = await bothWays(plain({ limit, before: cursor }));
        if (!previous.ok) throw new Error(JSON.stringify(previous.problems));
        back.unshift(...previous.value.rows.map((r) => r.id));
        if (!previous.value.hasMoreBefore) break;
        cursor = previous.value.firstId!;
      }
      expect(back, `limit ${limit}`).toEqual(ownEvents.slice(0, -1));
    }
  });

  it("answers an empty page past either end, not a refusal, as the keyset query does", async () => {
    for (const request of [plain({ limit: 5, after: ownEvents.at(-1)! }), plain({ limit: 5, before: ownEvents[0]! })]) {
      const page = await bothWays(request);
      expect(page.ok && page.value.rows).toEqual([]);
    }
  });

  it("refuses a cursor of another partner's event, or of none, as the keyset query does", async () => {
    for (const cursor of [strangersEvent, "01J0000000000000000000000Z"]) {
      for (const request of [plain({ limit: 5, after: cursor }), plain({ limit: 5, before: cursor })]) {
        const page = await bothWays(request);
        expect(page.ok).toBe(false);
      }
    }
  });

  it("is asked only for the log's own order, unfiltered", () => {
    expect(plainPageRequest(`${LOG}?sort=-id`, { limit: 20 })).toBeUndefined();
    expect(plainPageRequest(`${LOG}?filter=status|eq|FAILED`, { limit: 20 })).toBeUndefined();
    expect(plainPageRequest(`${LOG}?so%72t=id`, { limit: 20 })).toBeUndefined();
    expect(plainPageRequest(LOG, { limit: 20, after: "a", before: "b" })?.ok).toBe(false);
  });
});
