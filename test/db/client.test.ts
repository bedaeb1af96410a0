import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { database, withD1Session } from "../../src/db/client";
import { applications, orderLines } from "../../src/db/schema";
import { partnersOnShard, signIn } from "../support/api";
import { createApplication } from "../support/factories";

// SQL on `env.DB` directly: the partners are of shard 0 (the routing: test/db/shards.test.ts).
partnersOnShard(0);

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
    await withD1Session(env.DB, session, async () => {
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
