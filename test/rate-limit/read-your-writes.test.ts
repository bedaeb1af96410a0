import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json, login, partnersOnShard, signIn } from "../support/api";
import { applicationRequest } from "../support/factories";
import { tokenObject } from "../support/rate-limit";

// SQL on `env.DB` directly: the partners are of shard 0 (the routing: test/db/shards.test.ts).
partnersOnShard(0);

/**
 * The local D1 has no replicas, so these tests give the app a D1 that behaves like a replicated one
 * through the Sessions API's surface: it records each session's starting constraint or bookmark, and
 * hands out a newer (sortable) bookmark after every write, as the primary does. Queries still run on
 * the real local database.
 */
function replicatedD1() {
  const constraints: string[] = [];
  let commits = 0;
  const bookmark = () => `bookmark-${String(commits).padStart(6, "0")}`;
  const db = Object.create(env.DB) as D1Database;
  db.withSession = (constraint?: string) => {
    constraints.push(constraint ?? "(none)");
    let latest: string | null = constraint?.startsWith("bookmark-") ? constraint : null;
    const observe = (query: string) => {
      if (/^\s*(insert|update|delete|replace)\b/i.test(query)) {
        commits++;
        latest = bookmark();
      } else latest ??= bookmark();
    };
    return {
      prepare: (query: string) => {
        observe(query);
        return env.DB.prepare(query);
      },
      batch: (statements: D1PreparedStatement[]) => env.DB.batch(statements),
      getBookmark: () => latest,
    } as unknown as D1DatabaseSession;
  };
  return { db, constraints, latestBookmark: bookmark };
}

const keptBookmark = async (token: string) =>
  runInDurableObject(
    await tokenObject(token),
    (_, state) => state.storage.sql.exec<{ value: string }>("SELECT value FROM bookmark").toArray()[0]?.value ?? null,
  );

describe("reads see the token's own writes (D1 Sessions API)", () => {
  it("a write starts at the primary and keeps its bookmark; the token's next read starts from it", async () => {
    const replica = replicatedD1();
    const vars = { DB: replica.db };
    const { token } = await signIn();

    const created = await call("POST", "/financing/v1/applications", { token, body: applicationRequest(), vars });
    expect(created.status).toBe(201);
    const { id } = await json<{ id: string }>(created);
    expect(replica.constraints).toEqual(["first-primary"]);
    const written = replica.latestBookmark();
    expect(await keptBookmark(token)).toBe(written);

    const read = await call("GET", `/financing/v1/applications/${id}`, { token, vars });
    expect(read.status).toBe(200);
    expect(replica.constraints).toEqual(["first-primary", written]);
    const listed = await call("GET", "/financing/v1/applications", { token, vars });
    expect((await json<{ data: { id: string }[] }>(listed)).data.map((a) => a.id)).toEqual([id]);
    expect(replica.constraints.at(-1)).toBe(written);
  });

  it("a token that has written nothing reads from anywhere", async () => {
    const replica = replicatedD1();
    const { token } = await signIn();
    await call("GET", "/financing/v1/applications", { token, vars: { DB: replica.db } });
    expect(replica.constraints).toEqual(["first-unconstrained"]);
    expect(await keptBookmark(token)).toBeNull();
  });

  it("a refused write keeps no bookmark, and an older bookmark never replaces a newer one", async () => {
    const replica = replicatedD1();
    const vars = { DB: replica.db };
    const { partner, token } = await signIn();
    await call("POST", "/financing/v1/applications", { token, body: applicationRequest(), vars });
    const kept = await keptBookmark(token);
    expect(kept).not.toBeNull();
    const refused = await call("POST", "/financing/v1/applications", { token, body: { type: "NONE" }, vars });
    expect(refused.status).toBe(400);
    expect(await keptBookmark(token)).toBe(kept);

    await (await tokenObject(token)).remember("bookmark-000000");
    expect(await keptBookmark(token)).toBe(kept);
    // Bookmarks are per token: another login of the same partner starts unconstrained.
    const other = await login(partner);
    await call("GET", "/financing/v1/applications", { token: other, vars });
    expect(replica.constraints.at(-1)).toBe("first-unconstrained");
  });
});
