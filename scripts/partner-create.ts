/**
 * `npm run partner:create -- --username NAME [--shard N] [--remote | --persist-to DIR]`: creates a partner with a
 * generated password, API key and notification signing secret, and prints them once, as one JSON line
 * (with the partner's shard). They are stored only hashed (password) and encrypted (API key, signing
 * secret), so this is the only time they can be read.
 *
 * The shard (src/db/shards.ts): `--shard N`, else the newest shard with headroom (scripts/lib.ts,
 * `newPartnerShard`). The directory's row is written first: it holds the user name, so two partners can
 * never take one name on two shards; then the whole row on the partner's shard.
 *
 * The pepper: locally the one in .dev.vars (written by `npm start`); with --remote, AUTH_PEPPER must be
 * set in the environment to the value of the deployed secret. Locally it works beside a running
 * `npm start` (scripts/lib.ts: `wrangler`, `applyLocalMigrations`), on its database: `.wrangler/state`, or
 * the `--persist-to DIR` that server was started with.
 */
import { parseArgs } from "node:util";
import { newSigningSecret, randomSecret } from "../src/auth/crypto";
import { newId } from "../src/ids";
import {
  applyLocalMigrations,
  d1Rows,
  directorySql,
  ensureDevVars,
  newPartnerShard,
  partnerSql,
  shardBinding,
} from "./lib";

const { values } = parseArgs({
  options: {
    username: { type: "string" },
    shard: { type: "string" },
    remote: { type: "boolean", default: false },
    "persist-to": { type: "string" },
  },
});

try {
  if (!values.username) {
    throw new Error("usage: npm run partner:create -- --username NAME [--shard N] [--remote | --persist-to DIR]");
  }
  const persistTo = values["persist-to"];
  if (persistTo && values.remote) throw new Error("--persist-to names a local database: not with --remote");
  const pepper = values.remote ? process.env.AUTH_PEPPER : ensureDevVars().AUTH_PEPPER;
  if (!pepper) throw new Error("--remote needs AUTH_PEPPER in the environment (the deployed secret's value)");
  if (!values.remote) applyLocalMigrations({ quiet: true, persistTo });

  const credentials = {
    username: values.username,
    password: randomSecret(18),
    apiKey: randomSecret(32),
    signingSecret: newSigningSecret(),
  };
  const database = { remote: values.remote, persistTo };
  const shard = newPartnerShard(database, values.shard);
  const id = newId();
  // The insert leaves a taken user name alone; the select says whose it is, ours (even when an earlier
  // attempt of this command committed it) or another partner's.
  const owner = `SELECT id FROM partners WHERE username = '${values.username}';`;
  const directory =
    shard === 0
      ? await partnerSql(credentials, pepper, false, id)
      : await directorySql(credentials, pepper, false, id, shard);
  const ownerOf = (sql: string, binding: string) =>
    d1Rows<{ id: string }>(`${sql}\n${owner}`, database, binding).at(-1)?.[0]?.id;
  if (ownerOf(directory, "DB") !== id) throw new Error(`partner "${values.username}" already exists`);
  if (shard !== 0 && ownerOf(await partnerSql(credentials, pepper, false, id, shard), shardBinding(shard)) !== id) {
    throw new Error(
      `partner "${values.username}" is in the directory, but its shard ${shard} has another of that name`,
    );
  }
  console.log(JSON.stringify({ ...credentials, shard }));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
