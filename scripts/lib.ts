/** Shared by the operator scripts: wrangler invocation, local secrets, partner records. */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { hashPassword, sealSecret } from "../src/auth/crypto";
import { newId } from "../src/ids";

export const DEV_VARS = ".dev.vars";
const WRANGLER = ["exec", "--", "wrangler"];

/**
 * What a local D1 command prints when the database was busy: a running `npm start` is another process
 * with its own SQLite connection to the same file, and workerd's SQLite answers SQLITE_BUSY at once
 * rather than waiting for the lock (inside the server the same failure reaches the Worker as D1's
 * "internal error", see src/transient.ts). The lock is held for milliseconds, so the command is run again.
 */
export const BUSY = /SQLITE_BUSY|internal error; reference = /;
/** Pauses before each new attempt of a busy local command (milliseconds): about 10 s in all. */
const BUSY_RETRY_DELAYS_MS = [100, 200, 400, 800, 1600, 3200, 3200];

/**
 * Runs wrangler non-interactively (CI=true skips its confirmation prompts); throws on failure. A local
 * D1 command that found the database busy is run again (BUSY): every local command here is written to
 * be run twice (the partner scripts check what a previous attempt did), since a command can fail after
 * its change was committed.
 */
export function wrangler(args: string[], options: { quiet?: boolean } = {}): string {
  const local = args[0] === "d1" && args.includes("--local");
  for (let attempt = 0; ; attempt++) {
    const result = spawnSync("npm", [...WRANGLER, ...args], {
      encoding: "utf8",
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const delay = BUSY_RETRY_DELAYS_MS[attempt];
    if (result.status !== 0 && local && delay !== undefined && BUSY.test(`${result.stdout}${result.stderr}`)) {
      console.error(`wrangler ${args[0]} ${args[1]}: the local database was busy (a running server's lock); again`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, delay);
      continue;
    }
    if (!options.quiet || result.status !== 0) {
      process.stdout.write(result.stdout);
      process.stderr.write(result.stderr);
    }
    if (result.status !== 0) throw new Error(`wrangler ${args[0]} ${args[1] ?? ""} failed`);
    return result.stdout;
  }
}

/**
 * The D1 bindings of the shards as wrangler.toml declares them, in order: `DB` (the directory and
 * shard 0), then `SHARD_1`, `SHARD_2`, … (src/db/shards.ts). The binding of shard n is the n-th.
 */
export function shardBindings(): string[] {
  const toml = readFileSync("wrangler.toml", "utf8");
  const bindings = toml
    .split(/^\[\[/m)
    .filter((section) => section.startsWith("d1_databases]]"))
    .map((section) => /^binding\s*=\s*"([^"]+)"/m.exec(section)?.[1]);
  const expected = bindings.map((_, n) => (n === 0 ? "DB" : `SHARD_${n}`));
  if (bindings.join() !== expected.join()) {
    throw new Error(
      `wrangler.toml: the D1 bindings must be DB, SHARD_1, SHARD_2, … in order, not ${bindings.join(", ")}`,
    );
  }
  return expected;
}

/** The D1 binding of shard `shard`, checked against wrangler.toml. */
export function shardBinding(shard: number): string {
  const binding = shardBindings()[shard];
  if (!binding)
    throw new Error(`shard ${shard} is not bound: wrangler.toml binds shards 0 to ${shardBindings().length - 1}`);
  return binding;
}

/**
 * Applies the migrations to every shard (`npm run migrate`): the deployed databases with `remote`,
 * else the local ones (wrangler's default state, or `persistTo`). Locally, unless they already have
 * every one: a list of the applied files and shards kept beside the databases (deleting the state
 * deletes it too). Applying nothing still starts a local runtime on a database: seconds of work, and
 * one more holder of its lock beside a running server.
 */
export function applyMigrations(
  options: { quiet?: boolean; persistTo?: string | undefined; remote?: boolean } = {},
): void {
  if (options.remote && options.persistTo) throw new Error("--persist-to names a local database: not with --remote");
  const where = options.remote
    ? ["--remote"]
    : ["--local", ...(options.persistTo ? ["--persist-to", options.persistTo] : [])];
  const applied = path.join(options.persistTo ?? ".wrangler/state", "v3/d1/applied-migrations.txt");
  const bindings = shardBindings();
  const files = `${[
    ...bindings,
    ...readdirSync("migrations")
      .filter((f) => f.endsWith(".sql"))
      .sort(),
  ].join("\n")}\n`;
  if (!options.remote && existsSync(applied) && readFileSync(applied, "utf8") === files) return;
  for (const binding of bindings) wrangler(["d1", "migrations", "apply", binding, ...where], options);
  if (options.remote) return;
  mkdirSync(path.dirname(applied), { recursive: true });
  writeFileSync(applied, files);
}

/** The local databases' migrations (applyMigrations), for the commands that work on them. */
export function applyLocalMigrations(options: { quiet?: boolean; persistTo?: string | undefined } = {}): void {
  applyMigrations(options);
}

/**
 * `--var` arguments of every local `wrangler dev` (npm start, the browser tests): wrangler's dev proxy
 * needs each request body read to its end (DRAIN_UNREAD_BODIES, src/http/body-limit.ts).
 */
export const LOCAL_DEV_VARS = ["--var", "DRAIN_UNREAD_BODIES:true"];

export function readDevVars(): Record<string, string> {
  if (!existsSync(DEV_VARS)) return {};
  const vars: Record<string, string> = {};
  for (const line of readFileSync(DEV_VARS, "utf8").split("\n")) {
    const match = /^\s*([A-Z0-9_]+)\s*=\s*"?(.*?)"?\s*$/.exec(line);
    if (match) vars[match[1]!] = match[2]!;
  }
  return vars;
}

/**
 * Local development only: a random pepper kept in the git-ignored .dev.vars, plain http allowed, and
 * the sandbox on (its e-mail scenarios and advance-time; deployed, SANDBOX is off unless set).
 */
export function ensureDevVars(): Record<string, string> {
  const vars = readDevVars();
  if (!vars.AUTH_PEPPER || vars.REQUIRE_HTTPS === undefined || vars.SANDBOX === undefined) {
    const pepper = vars.AUTH_PEPPER ?? Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
    const lines = [
      "# Local development secrets and overrides, written by `npm start`. Never commit this file.",
      `AUTH_PEPPER="${pepper}"`,
      `REQUIRE_HTTPS="${vars.REQUIRE_HTTPS ?? "false"}"`,
      `SANDBOX="${vars.SANDBOX ?? "true"}"`,
      ...Object.entries(vars)
        .filter(([k]) => k !== "AUTH_PEPPER" && k !== "REQUIRE_HTTPS" && k !== "SANDBOX")
        .map(([k, v]) => `${k}="${v}"`),
    ];
    writeFileSync(DEV_VARS, `${lines.join("\n")}\n`, { mode: 0o600 });
  }
  return readDevVars();
}

export interface Credentials {
  username: string;
  password: string;
  apiKey: string;
  /** The Standard Webhooks secret that signs notifications, `whsec_…`. */
  signingSecret: string;
}

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

/**
 * The local demo partner (`npm start` creates it, local only). Its signing secret is fixed too, so that
 * `npm run example:receiver` verifies notifications out of the box.
 */
export const DEMO: Credentials = {
  username: "demo",
  password: "demo-password",
  apiKey: "demo-api-key",
  signingSecret: "whsec_ZGVtby1zaWduaW5nLXNlY3JldC1mb3ItbG9jYWwtdXNlLW9ubHk=",
};

/** A user name the scripts accept (and may therefore inline into SQL). */
export function checkUsername(username: string): void {
  if (!USERNAME.test(username)) throw new Error("user name: 1 to 64 characters of letters, digits and . _ @ -");
}

/**
 * SQL that inserts the partner with the id given, the whole row as its shard keeps it (src/db/shards.ts),
 * unless its user name is taken (or, with `replace`, resets an existing one's secrets). Every value is
 * either validated against USERNAME or produced by our own encoders (base64url, ULID), so it is safe to
 * inline into the statement that `wrangler d1 execute` runs. Run twice, it changes nothing more.
 */
export async function partnerSql(
  credentials: Credentials,
  pepper: string,
  replace: boolean,
  id: string = newId(),
  shard = 0,
): Promise<string> {
  checkUsername(credentials.username);
  const passwordHash = await hashPassword(credentials.password, pepper);
  const apiKeyCiphertext = await sealSecret(credentials.apiKey, pepper, "api-key");
  const signingSecretCiphertext = await sealSecret(credentials.signingSecret, pepper, "signing-secret");
  const values = [
    id,
    credentials.username,
    credentials.username,
    passwordHash,
    apiKeyCiphertext,
    signingSecretCiphertext,
  ].map((v) => `'${v}'`);
  return `INSERT INTO partners (id, username, display_name, password_hash, api_key_ciphertext, signing_secret_ciphertext, shard, created_at)
VALUES (${values.join(", ")}, ${shard}, ${Date.now()}) ON CONFLICT (username) ${
    replace
      ? `DO UPDATE SET password_hash = excluded.password_hash, api_key_ciphertext = excluded.api_key_ciphertext,
  signing_secret_ciphertext = excluded.signing_secret_ciphertext, previous_signing_secret_ciphertext = NULL,
  previous_signing_secret_expires_at = NULL, older_signing_secret_ciphertext = NULL, older_signing_secret_expires_at = NULL`
      : "DO NOTHING"
  };`;
}

/**
 * The directory's row of a partner of shard `shard` > 0: what logging in reads (its user name, password
 * hash and shard), and none of its secrets, which only its shard's row holds (an empty API key: the
 * column is NOT NULL). As partnerSql, safe to inline and idempotent; `replace` resets the password.
 */
export async function directorySql(
  credentials: Pick<Credentials, "username" | "password">,
  pepper: string,
  replace: boolean,
  id: string,
  shard: number,
): Promise<string> {
  checkUsername(credentials.username);
  const passwordHash = await hashPassword(credentials.password, pepper);
  return `INSERT INTO partners (id, username, display_name, password_hash, api_key_ciphertext, shard, created_at)
VALUES ('${id}', '${credentials.username}', '${credentials.username}', '${passwordHash}', '', ${shard}, ${Date.now()})
ON CONFLICT (username) ${replace ? "DO UPDATE SET password_hash = excluded.password_hash" : "DO NOTHING"};`;
}

/**
 * The statements that write a partner on shard `shard`, each with the binding it runs on: for shard 0
 * its one row in `DB`; for another, its identity in the directory (first: it holds the user name) and
 * its whole row on its shard. As partnerSql, safe to inline and idempotent.
 */
export async function partnerStatements(
  credentials: Credentials,
  pepper: string,
  replace: boolean,
  id: string,
  shard: number,
): Promise<{ binding: string; sql: string }[]> {
  const whole = { binding: shardBinding(shard), sql: await partnerSql(credentials, pepper, replace, id, shard) };
  if (shard === 0) return [whole];
  return [{ binding: "DB", sql: await directorySql(credentials, pepper, replace, id, shard) }, whole];
}

/**
 * Partners per shard before placement passes it by (PARTNERS_PER_SHARD in the environment overrides):
 * a shard's rows grow with its partners' orders (docs/scaling.md), so the operator watches its size
 * and adds the next shard well before this, or sets it lower.
 */
export const PARTNERS_PER_SHARD = 1000;

/**
 * Where a new partner goes: the newest shard with headroom (fewer partners than `cap`), counting down
 * from the highest-numbered bound shard; `counts[n]` is shard n's partners. Null when all are full.
 */
export function placeShard(counts: readonly number[], cap: number): number | null {
  for (let shard = counts.length - 1; shard >= 0; shard--) if (counts[shard]! < cap) return shard;
  return null;
}

/** A loopback port nobody listens on now, as the system hands it out (for the scripts' own servers). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Where an operator's command runs its SQL: the deployed database, or a local one (`--persist-to`). */
export interface Database {
  remote?: boolean;
  persistTo?: string | undefined;
}

/**
 * The rows each statement of `sql` answered, run by `wrangler d1 execute` on the database. Every value
 * inlined into `sql` must be the caller's own or checked (user names: checkUsername; numbers).
 */
export function d1Rows<T>(sql: string, database: Database, binding = "DB"): T[][] {
  if (database.remote && database.persistTo) throw new Error("--persist-to names a local database: not with --remote");
  const where = database.remote
    ? ["--remote"]
    : ["--local", ...(database.persistTo ? ["--persist-to", database.persistTo] : [])];
  const out = wrangler(["d1", "execute", binding, ...where, "--json", "--command", sql], { quiet: true });
  return (JSON.parse(out) as { results: T[] }[]).map((statement) => statement.results);
}

/**
 * The D1 binding of the partner's shard, as the directory says (src/db/shards.ts): where an operator's
 * command on the partner's data runs. Throws for an unknown user name.
 */
export function partnerBinding(username: string, database: Database): string {
  checkUsername(username);
  const [row] =
    d1Rows<{ shard: number }>(`SELECT shard FROM partners WHERE username = '${username}';`, database)[0] ?? [];
  if (!row) throw new Error(`no partner "${username}"`);
  return shardBinding(row.shard);
}

/**
 * The shard a new partner goes to: `requested` (the operator's `--shard N`), else the newest shard with
 * headroom (placeShard), from the directory's count of partners per shard.
 */
export function newPartnerShard(database: Database, requested?: string): number {
  const bound = shardBindings().length;
  if (requested !== undefined) {
    const shard = Number(requested);
    if (!/^\d+$/.test(requested) || shard >= bound)
      throw new Error(`--shard: one of 0 to ${bound - 1} (wrangler.toml)`);
    return shard;
  }
  const counts = new Array<number>(bound).fill(0);
  const rows = d1Rows<{ shard: number; partners: number }>(
    "SELECT shard, COUNT(*) AS partners FROM partners GROUP BY shard;",
    database,
  )[0];
  for (const row of rows ?? []) if (row.shard < bound) counts[row.shard] = row.partners;
  const cap = Number(process.env.PARTNERS_PER_SHARD ?? PARTNERS_PER_SHARD);
  const shard = placeShard(counts, cap);
  if (shard === null) throw new Error(`every shard has ${cap} partners: add one (docs/operations.md, "Shards")`);
  return shard;
}
