/**
 * `npm run partner:secret -- --username NAME (--rotate [--force] | --revoke) [--remote]`: the operator's
 * hand on a partner's notification signing secret. Both print the new secret once, as one JSON line:
 * - `--rotate`: as the partner's own POST /financing/v1/notification-secret/rotate does: the current
 *   secret keeps signing beside the new one for the overlap (24 hours), an earlier one whose overlap
 *   still runs keeps its own, and a rotation that would cut one is refused unless `--force`
 *   (src/domain/signing-secrets.ts);
 * - `--revoke`: every earlier secret stops signing at once (one leaked); only the new one signs.
 *
 * The pepper: locally the one in .dev.vars; with --remote, AUTH_PEPPER must be set in the environment.
 * Locally it works beside a running `npm start` (scripts/lib.ts: `wrangler`).
 */
import { parseArgs } from "node:util";
import { newSigningSecret, sealSecret } from "../src/auth/crypto";
import { planRotation, type SigningSecrets, type StoredSecrets, signingSecrets } from "../src/domain/signing-secrets";
import { checkUsername, ensureDevVars, partnerBinding, wrangler } from "./lib";

const OVERLAP_MS = 24 * 3600 * 1000;

const { values } = parseArgs({
  options: {
    username: { type: "string" },
    rotate: { type: "boolean", default: false },
    force: { type: "boolean", default: false },
    revoke: { type: "boolean", default: false },
    remote: { type: "boolean", default: false },
  },
});

/** Runs one statement on the partner's shard (src/db/shards.ts: its secrets are there) and answers its rows. */
let binding: string | undefined;
function query<T>(sql: string): T[] {
  binding ??= partnerBinding(values.username!, { remote: values.remote });
  const out = wrangler(["d1", "execute", binding, values.remote ? "--remote" : "--local", "--json", "--command", sql], {
    quiet: true,
  });
  return ((JSON.parse(out) as { results: T[] }[])[0]?.results ?? []) as T[];
}

/** A sealed secret, a number, or NULL as SQL: every inlined value is ours (base64url, digits). */
const literal = (value: string | number | null | undefined) =>
  value === null || value === undefined ? "NULL" : typeof value === "number" ? String(value) : `'${value}'`;

try {
  if (!values.username || values.rotate === values.revoke || (values.force && !values.rotate)) {
    throw new Error("usage: npm run partner:secret -- --username NAME (--rotate [--force] | --revoke) [--remote]");
  }
  checkUsername(values.username);
  const pepper = values.remote ? process.env.AUTH_PEPPER : ensureDevVars().AUTH_PEPPER;
  if (!pepper) throw new Error("--remote needs AUTH_PEPPER in the environment (the deployed secret's value)");
  const where = `username = '${values.username}'`;
  const [row] = query<StoredSecrets>(
    `SELECT signing_secret_ciphertext AS current, previous_signing_secret_ciphertext AS previous,
       previous_signing_secret_expires_at AS previousUntil, older_signing_secret_ciphertext AS older,
       older_signing_secret_expires_at AS olderUntil FROM partners WHERE ${where};`,
  );
  if (!row) throw new Error(`no partner "${values.username}"`);
  const before = signingSecrets(row);
  const signingSecret = newSigningSecret();
  const sealed = await sealSecret(signingSecret, pepper, "signing-secret");
  let after: SigningSecrets = { current: sealed, previous: null, older: null };
  if (values.rotate) {
    const planned = planRotation(before, { sealed, overlapMs: OVERLAP_MS, force: values.force }, Date.now());
    if (!planned.ok) throw new Error(planned.problems.map((p) => p.message).join("; "));
    after = planned.value;
  }
  // Only if no rotation came in between (the current secret is still the one read), or if this very
  // statement already landed: a local command met by a busy database runs again (scripts/lib.ts), and an
  // attempt may fail after its change was committed.
  const updated = query(
    `UPDATE partners SET signing_secret_ciphertext = ${literal(after.current)},
       previous_signing_secret_ciphertext = ${literal(after.previous?.sealed)},
       previous_signing_secret_expires_at = ${literal(after.previous?.expiresAt)},
       older_signing_secret_ciphertext = ${literal(after.older?.sealed)},
       older_signing_secret_expires_at = ${literal(after.older?.expiresAt)}
     WHERE ${where} AND (signing_secret_ciphertext IS ${literal(before.current)} OR signing_secret_ciphertext = ${literal(sealed)})
     RETURNING id;`,
  );
  if (updated.length === 0) throw new Error("the secret changed meanwhile (another rotation); run the command again");
  console.log(JSON.stringify({ username: values.username, signingSecret }));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
