/**
 * `npm run partner:create -- --username NAME [--remote]`: creates a partner with a generated password,
 * API key and notification signing secret, and prints them once, as one JSON line. They are stored only
 * hashed (password) and encrypted (API key, signing secret), so this is the only time they can be read.
 *
 * The pepper: locally the one in .dev.vars (written by `npm start`); with --remote, AUTH_PEPPER must be
 * set in the environment to the value of the deployed secret.
 */
import { parseArgs } from "node:util";
import { newSigningSecret, randomSecret } from "../src/auth/crypto";
import { ensureDevVars, partnerSql, wrangler } from "./lib";

const { values } = parseArgs({
  options: { username: { type: "string" }, remote: { type: "boolean", default: false } },
});

try {
  if (!values.username) throw new Error("usage: npm run partner:create -- --username NAME [--remote]");
  const pepper = values.remote ? process.env.AUTH_PEPPER : ensureDevVars().AUTH_PEPPER;
  if (!pepper) throw new Error("--remote needs AUTH_PEPPER in the environment (the deployed secret's value)");
  if (!values.remote) wrangler(["d1", "migrations", "apply", "DB", "--local"], { quiet: true });

  const credentials = {
    username: values.username,
    password: randomSecret(18),
    apiKey: randomSecret(32),
    signingSecret: newSigningSecret(),
  };
  const sql = await partnerSql(credentials, pepper, false);
  wrangler(["d1", "execute", "DB", values.remote ? "--remote" : "--local", "--command", sql], { quiet: true });
  console.log(JSON.stringify(credentials));
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  console.error(/UNIQUE constraint failed/.test(message) ? `partner "${values.username}" already exists` : message);
  process.exit(1);
}
