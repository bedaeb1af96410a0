/**
 * `npm run partner:quota -- --username NAME [--set SIZE | --default] [--remote]`: what a partner's rows
 * hold in the database all partners share, and its storage quota. Writes past the quota are refused
 * with 422 STORAGE_QUOTA_EXCEEDED (src/db/storage.ts).
 * - without an option: prints the usage and the quota;
 * - `--set SIZE` gives the partner a quota of its own, in bytes or with a unit (`2GiB`, `500MiB`);
 * - `--default` takes it away again: the Worker's STORAGE_QUOTA_BYTES (default 1 GiB) applies.
 * Prints one JSON line: `{"username","storedBytes","auditBytes","quotaBytes"}` (`auditBytes`: what the
 * audit log holds, counted against the quota too; `quotaBytes` null: the default applies).
 */
import { parseArgs } from "node:util";
import { checkUsername, partnerBinding, wrangler } from "./lib";

const UNITS: Record<string, number> = {
  "": 1,
  B: 1,
  KIB: 1024,
  MIB: 1024 ** 2,
  GIB: 1024 ** 3,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
};

/** `2GiB` → 2147483648; refuses anything that is not a whole number of bytes. */
function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([KMG]i?B|B)?$/i.exec(text.trim());
  const bytes = match ? Number(match[1]) * UNITS[(match[2] ?? "").toUpperCase()]! : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new Error(`--set: not a size in bytes: ${text}`);
  return bytes;
}

const { values } = parseArgs({
  options: {
    username: { type: "string" },
    set: { type: "string" },
    default: { type: "boolean", default: false },
    remote: { type: "boolean", default: false },
  },
});

try {
  if (!values.username || (values.set !== undefined && values.default)) {
    throw new Error("usage: npm run partner:quota -- --username NAME [--set SIZE | --default] [--remote]");
  }
  checkUsername(values.username);
  // Every inlined value is ours: a checked user name and a whole number.
  const quota = values.set !== undefined ? String(parseSize(values.set)) : values.default ? "NULL" : undefined;
  const where = `WHERE username = '${values.username}'`;
  const sql =
    quota === undefined
      ? `SELECT stored_bytes AS storedBytes, audit_bytes AS auditBytes, storage_quota_bytes AS quotaBytes FROM partners ${where};`
      : `UPDATE partners SET storage_quota_bytes = ${quota} ${where} RETURNING stored_bytes AS storedBytes, audit_bytes AS auditBytes, storage_quota_bytes AS quotaBytes;`;
  // The usage and quota are the shard's row's (src/db/shards.ts).
  const binding = partnerBinding(values.username, { remote: values.remote });
  const out = wrangler(["d1", "execute", binding, values.remote ? "--remote" : "--local", "--json", "--command", sql], {
    quiet: true,
  });
  const [row] =
    (JSON.parse(out) as { results: { storedBytes: number; auditBytes: number; quotaBytes: number | null }[] }[])[0]
      ?.results ?? [];
  if (!row) throw new Error(`no partner "${values.username}"`);
  console.log(JSON.stringify({ username: values.username, ...row }));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
