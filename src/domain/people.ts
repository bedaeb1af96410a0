/**
 * The rules of a partner's people in the console: who they are (an e-mail as the name, a role), how
 * they are set up (a one-time link, valid a day), what keeps the partner from locking itself out, and
 * until when the partner's API credentials still open the console.
 */
import { ok, problem, type Result, refused } from "./result";
import type { Role } from "./roles";

/** A setup link lasts a day from when an admin made it (adding a person, or resetting their sign-in). */
export const SETUP_LINK_MS = 24 * 60 * 60 * 1000;
/** The most people a partner has: each is a row of the database every partner shares. */
export const MAX_PEOPLE = 200;
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_EMAIL_LENGTH = 254;

/** A person as the rules see them. */
export interface PersonState {
  id: string;
  role: Role;
}

/**
 * An e-mail address as a person's name: trimmed and lower-cased, or null when it is not one. Deliberately
 * plain (one @, no spaces, quotes or angle brackets, a dot in the domain): it is a name to sign in with,
 * and the operator's command inlines it into SQL (scripts/console-admin.ts).
 */
export function personName(text: string): string | null {
  const email = text.trim().toLowerCase();
  return email.length <= MAX_EMAIL_LENGTH && /^[a-z0-9._%+-]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(email) ? email : null;
}

/** What is wrong with a chosen password, in words; null when it will do. */
export function passwordProblem(password: string, repeated: string, maxLength: number): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > maxLength) return `A password may be at most ${maxLength} characters.`;
  if (password !== repeated) return "The two passwords differ: type the same password twice.";
  return null;
}

/** Adding a person: refused when the e-mail is one of the partner's people already, or the partner has the most. */
export function planAddPerson(people: readonly { email: string }[], email: string): Result<void> {
  if (people.some((p) => p.email === email)) {
    return refused(problem("INVALID_VALUE", `${email} is one of your people already`, "email"));
  }
  if (people.length >= MAX_PEOPLE) {
    return refused(problem("INVALID_VALUE", `a partner has at most ${MAX_PEOPLE} people`, "email"));
  }
  return ok(undefined);
}

/**
 * Changing a person's role or removing them (`to` null) keeps at least one ADMIN among the partner's
 * people: nobody could add people, or undo the change, otherwise. (The write holds the rule too:
 * src/db/people.ts, so that two admins demoting each other at once cannot both win.)
 */
export function planRoleChange(people: readonly PersonState[], personId: string, to: Role | null): Result<void> {
  const person = people.find((p) => p.id === personId);
  if (!person) return refused(problem("INVALID_VALUE", "no such person", "person"));
  const admins = people.filter((p) => p.role === "ADMIN");
  if (person.role === "ADMIN" && to !== "ADMIN" && admins.length === 1) {
    return refused(problem("INVALID_VALUE", "the last ADMIN stays: make another person ADMIN first", "person"));
  }
  return ok(undefined);
}

/**
 * The end of the console's migration period (docs/operations.md): six months after people came to the
 * console. A date the partners are told, the same for every deployment, so a constant rather than a
 * variable; a partner's period ends earlier once one of its people is an ADMIN with their sign-in set up.
 */
export const API_CREDENTIALS_OPEN_CONSOLE_UNTIL = Date.parse("2027-06-01T00:00:00Z");

/**
 * Whether the partner's API credentials (its user name and password) still open the console: during the
 * migration period, and only while none of the partner's people is an ADMIN who has set up their
 * sign-in. From then on people sign in as themselves; the API's login keeps the credentials.
 */
export const apiCredentialsOpenConsole = (at: number, hasActiveAdmin: boolean) =>
  at < API_CREDENTIALS_OPEN_CONSOLE_UNTIL && !hasActiveAdmin;
