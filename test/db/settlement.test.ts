import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { database } from "../../src/db/client";
import { latestEntriesQuery } from "../../src/db/settlement";
import { partnersOnShard } from "../support/api";

// SQL on `env.DB` directly: the partners are of shard 0 (the routing: test/db/shards.test.ts).
partnersOnShard(0);

describe("an application's latest settlement entries", () => {
  it("are read backwards on the (application_id, id) index, without a sort step", async () => {
    const { sql, params } = latestEntriesQuery(database(env), "P", "A", 31).toSQL();
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .bind(...params)
      .all<{ detail: string }>();
    const steps = plan.results.map((step) => step.detail).join("\n");
    expect(steps).toContain("settlement_entries_application_idx");
    expect(steps).not.toContain("TEMP B-TREE");
  });
});
