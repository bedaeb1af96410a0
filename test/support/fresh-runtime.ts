/**
 * Setup of every workerd test file. The files of one vitest worker share one runtime, as requests share
 * a deployed isolate (`isolate: false` in vitest.config.ts): starting a runtime and loading the Worker
 * for each file cost more than the tests themselves. What a runtime of its own gave a file, this gives
 * it back: a database with the schema and no rows, and, when the file ends, real timers and the
 * original of whatever it spied on. (Durable Objects and module caches stay: every test has partners of
 * its own, and a deployed isolate keeps its caches too.)
 */
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, vi } from "vitest";
import { everyShard } from "../../src/db/shards";

// Every shard (wrangler.toml binds two) gets the schema and loses its rows. Idempotent: applyD1Migrations
// records what it applied, so every file may run it.
for (const { binding } of everyShard(env)) {
  await applyD1Migrations(binding, env.TEST_MIGRATIONS);
  const { results: tables } = await binding
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'",
    )
    .all<{ name: string }>();
  // One transaction, the foreign keys checked at its end: the order of the tables does not matter, but
  // for the marks of partners being moved (src/db/partner-move.ts), which go first: one left by a test
  // that failed mid-move would refuse the deletion of its partner's rows.
  const marksFirst = tables.sort((a, b) => Number(b.name === "partner_moves") - Number(a.name === "partner_moves"));
  await binding.batch([
    binding.prepare("PRAGMA defer_foreign_keys = on"),
    ...marksFirst.map(({ name }) => binding.prepare(`DELETE FROM "${name}"`)),
  ]);
}

afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});
