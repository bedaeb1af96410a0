/**
 * People of the console for tests: a person set up directly in the database (their password hashed and
 * their authenticator's secret sealed as a setup leaves them), and a browser signed in as them with the
 * code their authenticator shows now.
 */
import { env } from "cloudflare:workers";
import { hashPassword, randomSecret, sealSecret } from "../../src/auth/crypto";
import type { Role } from "../../src/domain/roles";
import { totpCode, totpSecretOf } from "../../src/domain/totp";
import { newId } from "../../src/ids";
import { TEST_PASSWORD_ITERATIONS, type TestPartner, type Vars } from "./api";
import { ConsoleBrowser } from "./console";
import { dbOf } from "./shards";

export interface TestPerson {
  id: string;
  partner: TestPartner;
  email: string;
  role: Role;
  password: string;
  /** The authenticator's secret, base32. */
  secret: string;
}

/** One of the partner's people with their sign-in set up. */
export async function addTestPerson(partner: TestPartner, role: Role, email?: string): Promise<TestPerson> {
  const id = newId();
  const person = {
    id,
    partner,
    email: email ?? `${role.toLowerCase()}-${id.toLowerCase()}@shop.example`,
    role,
    password: randomSecret(12),
    secret: totpSecretOf(crypto.getRandomValues(new Uint8Array(20))),
  };
  const at = Date.now();
  await dbOf(partner)
    .prepare(
      `INSERT INTO console_people (id, partner_id, email, role, password_hash, totp_secret_ciphertext, activated_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      id,
      partner.id,
      person.email,
      role,
      await hashPassword(person.password, env.AUTH_PEPPER, TEST_PASSWORD_ITERATIONS),
      await sealSecret(person.secret, env.AUTH_PEPPER, "totp-secret"),
      at,
      at,
      at,
    )
    .run();
  return person;
}

/** The sign-in form's fields of a person, with the code of `at` (now). */
export const personFields = (person: TestPerson, at = Date.now()) => ({
  account: person.partner.username,
  username: person.email,
  password: person.password,
  code: totpCode(person.secret, at),
});

/** Signs the browser in as the person (their authenticator's code of now); answers the sign-in's answer. */
export function signInAs(browser: ConsoleBrowser, person: TestPerson, fields: Partial<Record<string, string>> = {}) {
  return browser.submit("/console/sign-in", "/console/sign-in", { ...personFields(person), ...fields });
}

/** A browser signed in as a new person of the partner with the role. */
export async function personBrowser(
  partner: TestPartner,
  role: Role,
  vars?: Vars,
): Promise<{ browser: ConsoleBrowser; person: TestPerson }> {
  const person = await addTestPerson(partner, role);
  const browser = new ConsoleBrowser(vars);
  const res = await signInAs(browser, person);
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return { browser, person };
}

/** The partner's audit log as stored, oldest first. */
export async function auditRows(partnerId: string) {
  const { results } = await (await dbOf(partnerId))
    .prepare("SELECT * FROM audit_events WHERE partner_id = ? ORDER BY id")
    .bind(partnerId)
    .all<Record<string, unknown>>();
  return results;
}
