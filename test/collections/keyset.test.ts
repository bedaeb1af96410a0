import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { applicationScope, applicationsOf } from "../../src/collections/applications";
import { MAX_FILTER_VALUES } from "../../src/collections/collection";
import { keysetQuery } from "../../src/collections/keyset";
import { parsePageRequest } from "../../src/collections/query";
import { database } from "../../src/db/client";
import { partnersOnShard, signIn } from "../support/api";
import { generate, insert, LIST, type Seeded } from "../support/collections";

// SQL on `env.DB` directly: the partners are of shard 0 (the routing: test/db/shards.test.ts).
partnersOnShard(0);

let partnerId: string;
let seeded: Seeded[];

beforeAll(async () => {
  const owner = await signIn();
  const stranger = await signIn();
  partnerId = owner.partner.id;
  seeded = generate(300, 7);
  await insert(partnerId, seeded);
  await insert(stranger.partner.id, generate(300, 8));
});

/** The SQL the list endpoint runs for `query` (cursor included), and the top level of SQLite's plan for it. */
async function plan(query: string) {
  const db = database(env);
  const url = `http://api.test${LIST}?${query}`;
  const params = new URL(url).searchParams;
  const collection = applicationsOf(partnerId);
  const parsed = await parsePageRequest(collection, url, {
    limit: 20,
    after: params.get("after") ?? undefined,
    before: params.get("before") ?? undefined,
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const request = parsed.value;
  const statement = keysetQuery(db, collection, applicationScope(partnerId, collection, request), request).toSQL();
  const rows = await env.DB.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
    .bind(...statement.params)
    .all<{ id: number; parent: number; detail: string }>();
  const steps = rows.results;
  // The keyset query chooses the page's ids (its rows are "page"); the statement then reads those few
  // rows by primary key, each with its lines and documents, sorting at most limit + 1 of them.
  const keyset = steps.find((s) => s.detail === "CO-ROUTINE page");
  if (!keyset) throw new Error(`no keyset query in ${JSON.stringify(steps)}`);
  expect(steps.filter((s) => s.parent === 0)[0]?.detail).toBe(
    "SEARCH applications USING INDEX sqlite_autoindex_applications_1 (id=?)",
  );
  // Subqueries (the cursor's values) hang below the keyset query's own steps.
  const own = (s: { parent: number }) => s.parent === keyset.id;
  for (const step of steps.filter((s) => !own(s) && s.detail.startsWith("SEARCH applications "))) {
    // A cursor value, or a page's id: one lookup by primary key, whatever the sort.
    expect(step.detail).toMatch(
      /^SEARCH applications USING (COVERING )?INDEX sqlite_autoindex_applications_1 \(id=\?\)$/,
    );
  }
  for (const step of steps) expect(step.detail).not.toMatch(/^SCAN applications$/);
  const page = steps.filter((s) => own(s) && !/^((CORRELATED )?SCALAR|REUSE) SUBQUERY/.test(s.detail));
  return { sql: statement.sql, details: page.map((s) => s.detail) };
}

function expectIndexed(details: string[], index: string) {
  // One step: a search of the index, no full scan, no sort of the rows it found.
  expect(details).toHaveLength(1);
  expect(details[0]).toMatch(new RegExp(`^SEARCH applications USING (COVERING )?INDEX ${index} \\(partner_id=\\?`));
  for (const detail of details) {
    expect(detail).not.toMatch(/^SCAN applications$/);
    expect(detail).not.toContain("TEMP B-TREE");
  }
}

const cursor = () => seeded[150]!.id;

describe("the list's keyset queries use an index", () => {
  it("the default list reads (partner_id, id) in order, never with OFFSET", async () => {
    const { sql, details } = await plan("");
    expect(sql).not.toMatch(/offset/i);
    expect(sql).toMatch(/order by "applications"."id" asc limit \?\) as "page"\)/);
    expectIndexed(details, "applications_partner_id_idx");
  });

  it("a page after a cursor seeks into the index instead of skipping rows", async () => {
    const { details } = await plan(`after=${cursor()}`);
    expectIndexed(details, "applications_partner_id_idx");
    expect(details[0]).toContain("id>?");
  });

  it.each([
    ["-createdAt", "applications_partner_created_idx", "(created_at,id)<(?,?)"],
    ["createdAt", "applications_partner_created_idx", "(created_at,id)>(?,?)"],
    ["totalPrice", "applications_partner_total_idx", "(total_amount,id)>(?,?)"],
    ["-totalPrice", "applications_partner_total_idx", "(total_amount,id)<(?,?)"],
    ["updatedAt", "applications_partner_updated_idx", "(updated_at,id)>(?,?)"],
    ["-updatedAt", "applications_partner_updated_idx", "(updated_at,id)<(?,?)"],
    ["state", "applications_partner_state_idx", "(state,id)>(?,?)"],
    ["-state", "applications_partner_state_idx", "(state,id)<(?,?)"],
    ["type", "applications_partner_type_idx", "(type,id)>(?,?)"],
    ["-type", "applications_partner_type_idx", "(type,id)<(?,?)"],
    ["orderNumber", "applications_partner_order_number_idx", "(order_number,id)>(?,?)"],
    ["-orderNumber", "applications_partner_order_number_idx", "(order_number,id)<(?,?)"],
    ["-id", "applications_partner_id_idx", "id<?"],
  ])("sort=%s reads %s in order and seeks from the cursor with %s", async (sort, index, seek) => {
    expectIndexed((await plan(`sort=${sort}`)).details, index);
    const after = await plan(`sort=${sort}&after=${cursor()}`);
    expectIndexed(after.details, index);
    expect(after.details[0]).toContain(seek);
    // Backwards, the same index is read the other way from the cursor.
    expectIndexed((await plan(`sort=${sort}&before=${cursor()}`)).details, index);
  });

  it("a filter on state uses (partner_id, state, id) and keeps the id order", async () => {
    const { details } = await plan("filter=state|eq|READY");
    expectIndexed(details, "applications_partner_state_idx");
    expect(details[0]).toContain("state=?");
    const after = await plan(`filter=state|eq|READY&after=${cursor()}`);
    expectIndexed(after.details, "applications_partner_state_idx");
    expect(after.details[0]).toContain("state=? AND id>?");
  });

  it("a variableSymbol filter starts from the partner's symbols in the lookup's key, never from all its applications", async () => {
    for (const query of [
      "filter=variableSymbol|in|12,2026&sort=-createdAt",
      `filter=variableSymbol|eq|12&after=${cursor()}`,
    ]) {
      const { sql, details } = await plan(query);
      // The ids found, each by primary key, then (for another order than the ids') the few found sorted.
      expect(details.slice(0, 2)).toEqual([
        "SEARCH applications USING INDEX sqlite_autoindex_applications_1 (id=?)",
        expect.stringMatching(/^LIST SUBQUERY \d+$/),
      ]);
      expect(details.slice(2)).toEqual(query.includes("sort=") ? ["USE TEMP B-TREE FOR ORDER BY"] : []);
      expect(sql).toMatch(/"application_variable_symbols" WHERE "partner_id" = \? AND "variable_symbol" IN \(/);
    }
  });

  it("a date range sorted on the same date reads one index range", async () => {
    const { details } = await plan(
      "filter=createdAt|gteq|2026-11-22T10:10:00%2B00:00;createdAt|lt|2026-11-22T10:30:00%2B00:00&sort=-createdAt",
    );
    expectIndexed(details, "applications_partner_created_idx");
    expect(details[0]).toContain("created_at>? AND created_at<?");
  });

  it("binds at most 100 parameters (D1's limit) at the widest request", async () => {
    const values = Array.from(
      { length: MAX_FILTER_VALUES },
      (_, i) => `2026-11-22T10:${String(i).padStart(2, "0")}:00Z`,
    );
    const sort = "state,-type,orderNumber,-totalPrice,createdAt,-updatedAt,id";
    const { sql } = await plan(`sort=${sort}&filter=createdAt|in|${values.join(",")}&before=${cursor()}`);
    const parameters = sql.split("?").length - 1;
    expect(parameters).toBeGreaterThan(80);
    expect(parameters).toBeLessThanOrEqual(100);
  });
});
