/**
 * `npm run partner:secret -- --username NAME (--rotate | --revoke) [--remote]`: the operator's hand on a
 * partner's notification signing secret. Both print the new secret once, as one JSON line:
 * - `--rotate`: the current secret keeps signing beside the new one for the overlap (24 hours), as
 *   the partner's own POST /financing/v1/notification-secret/rotate does;
 * - `--revoke`: the current secret stops signing at once (it leaked); only the new one signs.
 *
 * The pepper: locally the one in .dev.vars; with --remote, AUTH_PEPPER must be set in the environment.
 */
import { parseArgs } from "node:util";
import { newSigningSecret, sealSecret } from "../src/auth/crypto";
import { checkUsername, ensureDevVars, wrangler } from "./lib";

const OVERLAP_MS = 24 * 3600 * 1000;

const { values } = parseArgs({
  options: {
    username: { type: "string" },
    rotate: { type: "boolean", default: false },
    revoke: { type: "boolean", default: false },
    remote: { type: "boolean", default: false },
  },
});

try {
  if (!values.username || values.rotate === values.revoke) {
    throw new Error("usage: npm run partner:secret -- --username NAME (--rotate | --revoke) [--remote]");
  }
  checkUsername(values.username);
  const pepper = values.remote ? process.env.AUTH_PEPPER : ensureDevVars().AUTH_PEPPER;
  if (!pepper) throw new Error("--remote needs AUTH_PEPPER in the environment (the deployed secret's value)");
  const signingSecret = newSigningSecret();
  const sealed = await sealSecret(signingSecret, pepper, "signing-secret");
  // Every inlined value is ours: a checked user name, base64url ciphertext, a number.
  const previous = values.rotate
    ? `previous_signing_secret_ciphertext = signing_secret_ciphertext, previous_signing_secret_expires_at = ${Date.now() + OVERLAP_MS}`
    : "previous_signing_secret_ciphertext = NULL, previous_signing_secret_expires_at = NULL";
  const sql = `UPDATE partners SET ${previous}, signing_secret_ciphertext = '${sealed}' WHERE username = '${values.username}' RETURNING id;`;
  const out = wrangler(["d1", "execute", "DB", values.remote ? "--remote" : "--local", "--json", "--command", sql], {
    quiet: true,
  });
  const results = (JSON.parse(out) as { results: unknown[] }[])[0]?.results ?? [];
  if (results.length === 0) throw new Error(`no partner "${values.username}"`);
  console.log(JSON.stringify({ username: values.username, signingSecret }));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
