import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { applicationSearchCollection } from "../../src/collections/application-search";
import { applicationScope } from "../../src/collections/applications";
import { keysetPage, keysetQuery } from "../../src/collections/keyset";
import { filterParameter } from "../../src/collections/links";
import { parsePageRequest } from "../../src/collections/query";
import { shardDatabase } from "../../src/db/client";
import { shardBinding } from "../../src/db/shards";
import { signIn } from "../support/api";
import { generate, insert, type Seeded } from "../support/collections";

let partnerId: string;
let shard: number;
let seeded: Seeded[];

beforeAll(async () => {
  const owner = await signIn();
  // On the owner's shard: a search must not find them by what it asks, not by where they are.
  const stranger = await signIn({ shard: owner.partner.shard });
  partnerId = owner.partner.id;
  shard = owner.partner.shard;
  // An order number that is also a variable symbol of other orders: one term, two kinds of match.
  seeded = generate(300, 11).map((a, i) => (i === 0 ? { ...a, orderNumber: "2026" } : a));
  await insert(partnerId, seeded);
  // The stranger's orders carry the same numbers, e-mails and symbols: none may be found.
  await insert(stranger.partner.id, generate(300, 11));
});

async function request(text: string, sort = "-createdAt") {
  const filter = filterParameter([{ name: "search", operator: "eq", values: [text] }]);
  const url = `http://console.test/console/applications?${new URLSearchParams({ sort, filter })}`;
  const parsed = await parsePageRequest(applicationSearchCollection(partnerId), url, { limit: 100 });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.value;
}

/** Every id the search finds, page after page. */
async function search(text: string): Promise<string[]> {
  const db = shardDatabase(env, shard);
  const collection = applicationSearchCollection(partnerId);
  const found: string[] = [];
  let after: string | undefined;
  for (;;) {
    const paged = { ...(await request(text)), after };
    const page = await keysetPage(db, collection, applicationScope(partnerId, collection, paged), paged);
    if (!page.ok) throw new Error(JSON.stringify(page.problems));
    found.push(...page.value.rows.map((row) => row.id));
    if (page.value.rows.length < 100) return found;
    after = found.at(-1);
  }
}

async function plan(text: string, sort?: string): Promise<string[]> {
  const collection = applicationSearchCollection(partnerId);
  const asked = await request(text, sort);
  const statement = keysetQuery(
    shardDatabase(env, shard),
    collection,
    applicationScope(partnerId, collection, asked),
    asked,
  ).toSQL();
  const rows = await shardBinding(env, shard)
    .prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
    .bind(...statement.params)
    .all<{ detail: string }>();
  return rows.results.map((step) => step.detail);
}

const sorted = (ids: string[]) => [...ids].sort();
const idsOf = (match: (a: Seeded) => boolean) => sorted(seeded.filter(match).map((a) => a.id));

describe("console search", () => {
  it.each([
    ["an order number", "ORD-0042"],
    ["an e-mail", "customer7@example.com"],
    ["a variable symbol", "77777"],
    ["an application id", "01KAJ0000000000000000000AA"],
    ["an order number that is also a variable symbol", "2026"],
  ])("finds %s by indexed lookups only, never a scan of the partner's applications", async (_kind, text) => {
    for (const sort of ["-createdAt", "totalPrice", "orderNumber"]) {
      const details = await plan(text, sort);
      // The page is the found ids, each looked up by key (then sorted: they are few).
      expect(details[0]).toBe("SEARCH applications USING INDEX sqlite_autoindex_applications_1 (id=?)");
      for (const detail of details) {
        expect(detail).not.toMatch(/^SCAN (applications|application_variable_symbols)\b/);
        // Walking the sort's index with the search as a test on each row is the scan in disguise.
        expect(detail).not.toMatch(/^SEARCH applications USING (COVERING )?INDEX \w+ \(partner_id=\?\)$/);
      }
      expect(details.join("\n")).toMatch(/applications_partner_order_number_idx \(partner_id=\? AND order_number=\?\)/);
    }
  });

  it("uses the index of each alternative the text can be", async () => {
    const details = (await plan("2026")).join("\n");
    expect(details).toContain("application_variable_symbols");
    expect(details).toMatch(/sqlite_autoindex_application_variable_symbols_1 \(partner_id=\? AND variable_symbol=\?\)/);
    expect((await plan("Customer7@Example.com")).join("\n")).toMatch(
      /applications_partner_email_idx \(partner_id=\? AND customer_email=\?\)/,
    );
  });

  it("finds the partner's orders by order number", async () => {
    const expected = idsOf((a) => a.orderNumber === "ORD-0042");
    expect(expected.length).toBeGreaterThan(0);
    expect(sorted(await search("ORD-0042"))).toEqual(expected);
    expect(sorted(await search("  ORD-0042 "))).toEqual(expected);
  });

  it("finds the partner's orders by e-mail, whatever its case", async () => {
    const expected = idsOf((a) => a.email.toLowerCase() === "customer7@example.com");
    expect(expected.length).toBeGreaterThan(0);
    expect(sorted(await search("CUSTOMER7@example.com"))).toEqual(expected);
  });

  it("finds the partner's orders by any of their variable symbols, not by a part of one", async () => {
    const expected = idsOf((a) => a.variableSymbols.includes("12"));
    // Some of them list the symbol after another one: the stored list's first member is not enough.
    expect(seeded.some((a) => a.variableSymbols.indexOf("12") > 0)).toBe(true);
    expect(sorted(await search("12"))).toEqual(expected);
    expect(idsOf((a) => a.variableSymbols.includes("2"))).toEqual([]);
    expect(await search("2")).toEqual([]);
  });

  it("finds an application by its id, whatever its case, and only the partner's", async () => {
    const target = seeded[5]!;
    expect(await search(target.id.toLowerCase())).toEqual([target.id]);
  });

  it("finds an order by its order number and others by the same text as a variable symbol, each once", async () => {
    const found = await search("2026");
    expect(sorted(found)).toEqual(idsOf((a) => a.orderNumber === "2026" || a.variableSymbols.includes("2026")));
    expect(new Set(found).size).toBe(found.length);
  });

  it("finds nothing for a text that is none of them", async () => {
    expect(await search("no such order")).toEqual([]);
  });
});
