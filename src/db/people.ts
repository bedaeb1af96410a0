/**
 * A partner's people in the console (src/domain/people.ts) as stored. A change that must keep one ADMIN
 * holds that rule in its own statement too, so that two admins demoting each other at once cannot both
 * win; a setup and a code are taken by conditional updates, so that a link or a code works once.
 */
import { and, asc, eq, gt, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import type { Role, SupportRefundLimits } from "../domain/roles";
import type { Database } from "./client";
import { consolePeople, type PersonRow, partners } from "./schema";

/** What a setup link leaves on the row: its token's hash and its end; the sign-in set up before is gone. */
export interface SetupLink {
  tokenHash: string;
  expiresAt: number;
}

export const peopleOf = (db: Database, partnerId: string): Promise<PersonRow[]> =>
  db.select().from(consolePeople).where(eq(consolePeople.partnerId, partnerId)).orderBy(asc(consolePeople.email));

export async function personById(db: Database, partnerId: string, id: string): Promise<PersonRow | null> {
  const row = await db
    .select()
    .from(consolePeople)
    .where(and(eq(consolePeople.partnerId, partnerId), eq(consolePeople.id, id)))
    .get();
  return row ?? null;
}

/** The partner of an account name (its user name), and the person of that partner with the e-mail, if any. */
export async function personOfAccount(db: Database, account: string, email: string) {
  const row = await db
    .select({ partnerId: partners.id, person: consolePeople })
    .from(partners)
    .leftJoin(consolePeople, and(eq(consolePeople.partnerId, partners.id), eq(consolePeople.email, email)))
    .where(eq(partners.username, account))
    .get();
  return row ?? null;
}

/** The person whose setup link has this token's hash, while it is valid, with their partner's account name. */
export async function personOfSetupLink(db: Database, tokenHash: string, at: number) {
  const row = await db
    .select({ person: consolePeople, account: partners.username })
    .from(consolePeople)
    .innerJoin(partners, eq(partners.id, consolePeople.partnerId))
    .where(and(eq(consolePeople.setupTokenHash, tokenHash), gt(consolePeople.setupExpiresAt, at)))
    .get();
  return row ?? null;
}

/** Adds a person with a setup link; false when the partner has a person of that e-mail already. */
export async function addPerson(
  db: Database,
  person: { id: string; partnerId: string; email: string; role: Role },
  link: SetupLink,
  at: number,
): Promise<boolean> {
  const added = await db
    .insert(consolePeople)
    .values({
      ...person,
      setupTokenHash: link.tokenHash,
      setupExpiresAt: link.expiresAt,
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoNothing()
    .returning({ id: consolePeople.id });
  return added.length > 0;
}

/** The condition that a change of `id` away from ADMIN leaves another ADMIN of the partner. */
const anotherAdminRemains = (partnerId: string, id: string) =>
  or(
    sql`${consolePeople.role} <> 'ADMIN'`,
    sql`(SELECT COUNT(*) FROM ${consolePeople} WHERE ${consolePeople.partnerId} = ${partnerId} AND ${consolePeople.role} = 'ADMIN' AND ${consolePeople.id} <> ${id}) > 0`,
  );

/** Changes a person's role; false when there is no such person, or they are the last ADMIN and `role` is not. */
export async function changeRole(db: Database, partnerId: string, id: string, role: Role, at: number) {
  const changed = await db
    .update(consolePeople)
    .set({ role, updatedAt: at })
    .where(
      and(
        eq(consolePeople.partnerId, partnerId),
        eq(consolePeople.id, id),
        role === "ADMIN" ? undefined : anotherAdminRemains(partnerId, id),
      ),
    )
    .returning({ id: consolePeople.id });
  return changed.length > 0;
}

/** Removes a person; false when there is no such person, or they are the last ADMIN. */
export async function removePerson(db: Database, partnerId: string, id: string): Promise<boolean> {
  const removed = await db
    .delete(consolePeople)
    .where(and(eq(consolePeople.partnerId, partnerId), eq(consolePeople.id, id), anotherAdminRemains(partnerId, id)))
    .returning({ id: consolePeople.id });
  return removed.length > 0;
}

/** Forgets a person's password and authenticator and gives them a new setup link; false when there is no such person. */
export async function resetSignIn(db: Database, partnerId: string, id: string, link: SetupLink, at: number) {
  const reset = await db
    .update(consolePeople)
    .set({
      passwordHash: null,
      totpSecretCiphertext: null,
      totpLastStep: null,
      activatedAt: null,
      setupTokenHash: link.tokenHash,
      setupExpiresAt: link.expiresAt,
      updatedAt: at,
    })
    .where(and(eq(consolePeople.partnerId, partnerId), eq(consolePeople.id, id)))
    .returning({ id: consolePeople.id });
  return reset.length > 0;
}

/**
 * Takes the setup link: the person's password and authenticator (its secret sealed, the step of the code
 * that confirmed it) are stored and the link ends, if it is still this one and still valid. False when
 * it was taken already or has expired (a link works once).
 */
export async function completeSetup(
  db: Database,
  id: string,
  link: { tokenHash: string; at: number },
  signIn: { passwordHash: string; totpSecretCiphertext: string; totpLastStep: number },
): Promise<boolean> {
  const done = await db
    .update(consolePeople)
    .set({ ...signIn, setupTokenHash: null, setupExpiresAt: null, activatedAt: link.at, updatedAt: link.at })
    .where(
      and(
        eq(consolePeople.id, id),
        eq(consolePeople.setupTokenHash, link.tokenHash),
        gt(consolePeople.setupExpiresAt, link.at),
      ),
    )
    .returning({ id: consolePeople.id });
  return done.length > 0;
}

/**
 * Takes a code's time step for the person's sign-in, if it is later than any they used: false when a
 * sign-in took it (or a later one) first, so that one code signs in once even when sent twice at once.
 */
export async function takeTotpStep(db: Database, id: string, step: number): Promise<boolean> {
  const taken = await db
    .update(consolePeople)
    .set({ totpLastStep: step })
    .where(and(eq(consolePeople.id, id), or(isNull(consolePeople.totpLastStep), lt(consolePeople.totpLastStep, step))))
    .returning({ id: consolePeople.id });
  return taken.length > 0;
}

/** Whether one of the partner's people is an ADMIN who has set up their sign-in. */
export async function hasActiveAdmin(db: Database, partnerId: string): Promise<boolean> {
  const row = await db
    .select({ id: consolePeople.id })
    .from(consolePeople)
    .where(
      and(
        eq(consolePeople.partnerId, partnerId),
        eq(consolePeople.role, "ADMIN"),
        isNotNull(consolePeople.activatedAt),
      ),
    )
    .limit(1)
    .get();
  return row !== undefined;
}

export async function supportRefundLimitsOf(db: Database, partnerId: string): Promise<SupportRefundLimits> {
  const row = await db
    .select({ limits: partners.supportRefundLimits })
    .from(partners)
    .where(eq(partners.id, partnerId))
    .get();
  return row?.limits ?? {};
}

/** Sets what SUPPORT may refund at once in one currency (the others stay as they were). */
export async function setSupportRefundLimit(db: Database, partnerId: string, currency: string, amount: number) {
  await db
    .update(partners)
    .set({
      supportRefundLimits: sql`json_set(COALESCE(${partners.supportRefundLimits}, '{}'), ${`$.${currency}`}, ${amount})`,
    })
    .where(eq(partners.id, partnerId));
}
