/** Shared by the operator scripts: wrangler invocation, local secrets, partner records. */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hashPassword, sealSecret } from "../src/auth/crypto";
import { newId } from "../src/ids";

export const DEV_VARS = ".dev.vars";
const WRANGLER = ["exec", "--", "wrangler"];

/** Runs wrangler non-interactively (CI=true skips its confirmation prompts); throws on failure. */
export function wrangler(args: string[], options: { quiet?: boolean } = {}): string {
  const result = spawnSync("npm", [...WRANGLER, ...args], {
    encoding: "utf8",
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    stdio: options.quiet ? ["ignore", "pipe", "pipe"] : ["ignore", "inherit", "inherit"],
  });
  if (result.status !== 0) {
    throw new Error(`wrangler ${args[0]} ${args[1] ?? ""} failed${options.quiet ? `:\n${result.stderr}` : ""}`);
  }
  return result.stdout ?? "";
}

export function readDevVars(): Record<string, string> {
  if (!existsSync(DEV_VARS)) return {};
  const vars: Record<string, string> = {};
  for (const line of readFileSync(DEV_VARS, "utf8").split("\n")) {
    const match = /^\s*([A-Z0-9_]+)\s*=\s*"?(.*?)"?\s*$/.exec(line);
    if (match) vars[match[1]!] = match[2]!;
  }
  return vars;
}

/** Local development only: a random pepper kept in the git-ignored .dev.vars, and plain http allowed. */
export function ensureDevVars(): Record<string, string> {
  const vars = readDevVars();
  if (!vars.AUTH_PEPPER || vars.REQUIRE_HTTPS === undefined) {
    const pepper = vars.AUTH_PEPPER ?? Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
    const lines = [
      "# Local development secrets and overrides, written by `npm start`. Never commit this file.",
      `AUTH_PEPPER="${pepper}"`,
      `REQUIRE_HTTPS="${vars.REQUIRE_HTTPS ?? "false"}"`,
      ...Object.entries(vars)
        .filter(([k]) => k !== "AUTH_PEPPER" && k !== "REQUIRE_HTTPS")
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
 * SQL that inserts the partner (or, with `replace`, resets an existing one's secrets). Every value is
 * either validated against USERNAME or produced by our own encoders (base64url, ULID), so it is safe
 * to inline into the statement that `wrangler d1 execute` runs.
 */
export async function partnerSql(credentials: Credentials, pepper: string, replace: boolean): Promise<string> {
  checkUsername(credentials.username);
  const passwordHash = await hashPassword(credentials.password, pepper);
  const apiKeyCiphertext = await sealSecret(credentials.apiKey, pepper, "api-key");
  const signingSecretCiphertext = await sealSecret(credentials.signingSecret, pepper, "signing-secret");
  const values = [
    newId(),
    credentials.username,
    credentials.username,
    passwordHash,
    apiKeyCiphertext,
    signingSecretCiphertext,
  ].map((v) => `'${v}'`);
  return `INSERT INTO partners (id, username, display_name, password_hash, api_key_ciphertext, signing_secret_ciphertext, created_at)
VALUES (${values.join(", ")}, ${Date.now()})${
    replace
      ? ` ON CONFLICT (username) DO UPDATE SET password_hash = excluded.password_hash, api_key_ciphertext = excluded.api_key_ciphertext,
  signing_secret_ciphertext = excluded.signing_secret_ciphertext, previous_signing_secret_ciphertext = NULL,
  previous_signing_secret_expires_at = NULL, older_signing_secret_ciphertext = NULL, older_signing_secret_expires_at = NULL`
      : ""
  };`;
}
