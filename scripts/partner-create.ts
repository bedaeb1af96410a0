/**
 * `npm run partner:create -- --username NAME [--remote | --persist-to DIR]`: creates a partner with a generated password,
 * API key and notification signing secret, and prints them once, as one JSON line. They are stored only
 * hashed (password) and encrypted (API key, signing secret), so this is the only time they can be read.
 *
 * The pepper: locally the one in .dev.vars (written by `npm start`); with --remote, AUTH_PEPPER must be
 * set in the environment to the value of the deployed secret. Locally it works beside a running
 * `npm start` (scripts/lib.ts: `wrangler`, `applyLocalMigrations`), on its database: `.wrangler/state`, or
 * the `--persist-to DIR` that server was started with.
 */
import { parseArgs } from "node:util";
import { newSigningSecret, randomSecret } from "../src/auth/crypto";
import { newId } from "../src/ids";
import { applyLocalMigrations, ensureDevVars, partnerSql, wrangler } from "./lib";

const { values } = parseArgs({
  options: {
    username: { type: "string" },
    remote: { type: "boolean", default: false },
    "persist-to": { type: "string" },
  },
});

try {
  if (!values.username) {
    throw new Error("usage: npm run partner:create -- --username NAME [--remote | --persist-to DIR]");
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
  const id = newId();
  // The insert leaves a taken user name alone; the select says whose it is, ours (even when an earlier
  // attempt of this command committed it) or another partner's.
  const sql = `${await partnerSql(credentials, pepper, false, id)}
SELECT id FROM partners WHERE username = '${values.username}';`;
  const where = values.remote ? ["--remote"] : ["--local", ...(persistTo ? ["--persist-to", persistTo] : [])];
  const out = wrangler(["d1", "execute", "DB", ...where, "--json", "--command", sql], { quiet: true });
  const owner = (JSON.parse(out) as { results: { id: string }[] }[]).at(-1)?.results[0]?.id;
  if (owner !== id) throw new Error(`partner "${values.username}" already exists`);
  console.log(JSON.stringify(credentials));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
