/**
 * `npm run console:admin -- --username PARTNER --email EMAIL [--origin URL] [--remote | --persist-to DIR]`:
 * the operator's way to a partner's first console ADMIN (or back in, when every ADMIN lost their
 * authenticator): makes the person an ADMIN with a new one-time setup link, valid a day, and prints it
 * once, as one JSON line `{"username","email","role","setupUrl","expiresAt"}`. A person of that e-mail
 * already there becomes ADMIN and must set up their sign-in again (their password and authenticator stop
 * working, and so does every session of theirs). Recorded in the partner's audit log as the operator's.
 *
 * `--origin` is where the partner's people open the console (default `http://127.0.0.1:8787` locally;
 * required with --remote). Only the link's hash is stored. Locally it works beside a running `npm start`
 * (scripts/lib.ts: `wrangler`), on its database: `.wrangler/state`, or the `--persist-to DIR` it was
 * started with.
 */
import { parseArgs } from "node:util";
import { randomSecret, sha256Hex } from "../src/auth/crypto";
import { jsonBytes } from "../src/domain/application-size";
import { auditRecord } from "../src/domain/audit";
import { personName, SETUP_LINK_MS } from "../src/domain/people";
import { newId } from "../src/ids";
import { applyLocalMigrations, checkUsername, partnerBinding, shardBindings, wrangler } from "./lib";

const { values } = parseArgs({
  options: {
    username: { type: "string" },
    email: { type: "string" },
    origin: { type: "string" },
    remote: { type: "boolean", default: false },
    "persist-to": { type: "string" },
  },
});

/** A value inlined into SQL: every one is ours (checked names, base32/hex/ULID, digits) or NULL. */
const literal = (value: string | number | null) =>
  value === null ? "NULL" : typeof value === "number" ? String(value) : `'${value.replace(/'/g, "''")}'`;

try {
  const email = personName(values.email ?? "");
  if (!values.username || !email) {
    throw new Error(
      "usage: npm run console:admin -- --username PARTNER --email EMAIL [--origin URL] [--remote | --persist-to DIR]",
    );
  }
  checkUsername(values.username);
  const persistTo = values["persist-to"];
  if (persistTo && values.remote) throw new Error("--persist-to names a local database: not with --remote");
  if (values.remote && !values.origin) throw new Error("--remote needs --origin, where the partner opens the console");
  const origin = new URL(values.origin ?? "http://127.0.0.1:8787").origin;
  if (!values.remote) applyLocalMigrations({ quiet: true, persistTo });

  const at = Date.now();
  // The person is kept in the partner's shard (src/db/shards.ts), which the link names.
  const binding = partnerBinding(values.username, { remote: values.remote, persistTo });
  const token = `${shardBindings().indexOf(binding)}.${randomSecret(32)}`;
  const tokenHash = await sha256Hex(token);
  const expiresAt = at + SETUP_LINK_MS;
  const partner = `(SELECT id FROM partners WHERE username = ${literal(values.username)})`;
  const entry = auditRecord(
    "PARTNER",
    {
      operation: "addPerson",
      source: "OPERATOR",
      actor: { type: "OPERATOR", id: null, name: null },
      address: null,
      outcome: "SUCCEEDED",
      subject: `${email} (ADMIN)`,
    },
    at,
    newId(at),
  );
  const columns = Object.keys(entry).map((key) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
  const auditValues = Object.entries(entry).map(([key, value]) =>
    key === "partnerId" ? partner : literal(value as string | number | null),
  );
  // Run twice (a busy local database runs a command again), it changes nothing more: the same link, the
  // same entry (its id), the usage counted with the entry only (as src/db/storage.ts counts a row).
  const sql = `INSERT INTO console_people (id, partner_id, email, role, setup_token_hash, setup_expires_at, created_at, updated_at)
SELECT ${literal(newId(at))}, id, ${literal(email)}, 'ADMIN', ${literal(tokenHash)}, ${expiresAt}, ${at}, ${at} FROM partners WHERE username = ${literal(values.username)}
ON CONFLICT (partner_id, email) DO UPDATE SET role = 'ADMIN', password_hash = NULL, totp_secret_ciphertext = NULL,
  totp_last_step = NULL, activated_at = NULL, setup_token_hash = excluded.setup_token_hash,
  setup_expires_at = excluded.setup_expires_at, updated_at = excluded.updated_at;
UPDATE partners SET audit_bytes = audit_bytes + ${jsonBytes(entry)}
  WHERE username = ${literal(values.username)} AND NOT EXISTS (SELECT 1 FROM audit_events WHERE id = ${literal(entry.id)});
INSERT OR IGNORE INTO audit_events (${columns.join(", ")}) SELECT ${auditValues.join(", ")} WHERE ${partner} IS NOT NULL;
SELECT email FROM console_people WHERE setup_token_hash = ${literal(tokenHash)};`;
  const where = values.remote ? ["--remote"] : ["--local", ...(persistTo ? ["--persist-to", persistTo] : [])];
  const out = wrangler(["d1", "execute", binding, ...where, "--json", "--command", sql], { quiet: true });
  const found = (JSON.parse(out) as { results: { email: string }[] }[]).at(-1)?.results[0]?.email;
  if (found !== email) throw new Error(`no partner "${values.username}"`);
  console.log(
    JSON.stringify({
      username: values.username,
      email,
      role: "ADMIN",
      setupUrl: `${origin}/console/setup/${token}`,
      expiresAt: new Date(expiresAt).toISOString(),
    }),
  );
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
