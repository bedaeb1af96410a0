import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { archiveFinished } from "../../src/db/archive";
import { partnersOnShard, signIn } from "../support/api";
import { AGE, advance, finished } from "../support/archive";
import { useClock } from "../support/time";

useClock();
// It measures one database's growth: its partners on shard 0 (DB).
partnersOnShard(0);

/** Reference lives per measured batch: enough that a page's worth of rounding stays about 5 %. */
const LIVES = 15;

/** The database's size in bytes, as D1 reports it after a statement (pages, free ones included). */
const databaseSize = async () => (await env.DB.prepare("SELECT 1").run()).meta.size_after;

/**
 * What the rows of each table hold, in bytes of their values as JSON (no page, index or free space): the
 * composition of the growth the database's size measures.
 */
async function payload(): Promise<Record<string, number>> {
  const { results: tables } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'",
  ).all<{ name: string }>();
  const bytes: Record<string, number> = {};
  for (const { name } of tables) {
    const { results } = await env.DB.prepare(`SELECT * FROM "${name}"`).all();
    bytes[name] = results.reduce((sum, row) => sum + new TextEncoder().encode(JSON.stringify(row)).length, 0);
  }
  return bytes;
}

/** Each table's growth from `before` to `after`, per application. */
const perLife = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.keys(after)
      .map((t) => [t, Math.round((after[t]! - (before[t] ?? 0)) / LIVES)] as const)
      .filter(([, n]) => n !== 0),
  );

/** LIVES reference lives (approved, sent, delivered, paid out, five events each with their attempt), past the age. */
async function lives(token: string, count = LIVES) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { id } = await finished(token, "send then deliver");
    await advance(token, id, AGE / 1000);
    ids.push(id);
  }
  return ids;
}

async function archiveAll() {
  let archived = 0;
  for (let more = true; more; ) {
    const run = await archiveFinished(env.DB, env.ARCHIVE, Date.now(), AGE);
    archived += run.archived;
    more = run.more;
  }
  return archived;
}

describe("what an application holds in D1 over its whole life, with the archive and without", () => {
  it("keeps a tombstone of a fraction of the live application; the object holds the rest", async () => {
    const { token } = await signIn();
    // Warm up the tables' first pages, so that the batches measure growth alone.
    await lives(token, 3);
    await archiveAll();

    const start = await databaseSize();
    const payloadBefore = await payload();
    const ids = await lives(token);
    const live = ((await databaseSize()) - start) / LIVES;
    const payloadLive = await payload();
    expect(await archiveAll()).toBe(LIVES);
    const payloadArchived = await payload();
    // SQLite keeps the pages the archive freed and fills them first: the next batch grows the database
    // by what the first one left behind (the tombstones and the rows kept) and little else.
    const afterArchive = await databaseSize();
    await lives(token);
    const kept = ((await databaseSize()) - afterArchive) / LIVES;
    const objects = await Promise.all(
      ids.map(async (id) => {
        const { archive_key: key } = (await env.DB.prepare("SELECT archive_key FROM applications WHERE id = ?")
          .bind(id)
          .first<{ archive_key: string }>())!;
        return (await env.ARCHIVE.head(key))!.size;
      }),
    );
    const object = objects.reduce((a, b) => a + b, 0) / LIVES;
    const rowsLive = perLife(payloadBefore, payloadLive);
    const rowsKept = perLife(payloadBefore, payloadArchived);
    const sum = (rows: Record<string, number>) => Object.values(rows).reduce((a, b) => a + b, 0);
    console.log(
      JSON.stringify({
        measured: "bytes per application, one reference life",
        databaseGrowth: {
          live: Math.round(live),
          archived: Math.round((afterArchive - start) / LIVES),
          afterArchiveNextLife: Math.round(kept),
        },
        rowPayload: { live: sum(rowsLive), archived: sum(rowsKept), byTableLive: rowsLive, byTableArchived: rowsKept },
        object: Math.round(object),
        lives: LIVES,
      }),
    );

    // The lines, events and attempts leave D1 whole; the row keeps a fraction of its content.
    for (const table of ["order_lines", "events", "notification_attempts"]) expect(rowsKept[table]).toBeUndefined();
    expect(rowsKept.applications!).toBeLessThan(rowsLive.applications! / 2);
    expect(sum(rowsKept)).toBeLessThan(sum(rowsLive));
  }, 180_000);
});
