/**
 * `npm run migrate [-- --remote | --persist-to DIR]`: applies the migrations to every shard that
 * wrangler.toml binds (`DB`, then `SHARD_1`, `SHARD_2`, …; src/db/shards.ts), one after the other, so
 * that the shards' schemas move together. Each is `wrangler d1 migrations apply`: a shard that has them
 * all already is left as it is, so a run that failed halfway is finished by running it again.
 */
import { parseArgs } from "node:util";
import { applyMigrations, shardBindings } from "./lib";

const { values } = parseArgs({
  options: { remote: { type: "boolean", default: false }, "persist-to": { type: "string" } },
});

try {
  applyMigrations({ remote: values.remote, persistTo: values["persist-to"] });
  console.log(`migrations applied to ${shardBindings().join(", ")}${values.remote ? " (deployed)" : " (local)"}`);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
