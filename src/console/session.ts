/**
 * The console's sign-in sessions and their forms' CSRF tokens.
 *
 * A session is a random id in a cookie (HttpOnly, SameSite=Strict; Secure with the `__Host-` prefix
 * where HTTPS is required), kept server-side in a Durable Object (src/rate-limit/durable-object.ts) that
 * holds only the id's hash: each sign-in gets a new id, a session ends after 30 minutes unused and 8 hours
 * after sign-in, and signing out ends it there.
 * - A person's session (`<person id>.<secret>`) is kept in the object of that person, beside their other
 *   sessions: listed on their account page, ended together by "sign out everywhere", a reset of their
 *   sign-in or their removal. Every request also reads the person from the database: a role changed
 *   applies to the next request, and a removed person's session is refused by it.
 * - A session of the partner's API credentials (the migration period, src/domain/people.ts) is kept in an
 *   object of its own, named by the id's hash, and acts as an ADMIN; it is refused as soon as the period
 *   ends for the partner.
 * Every form carries a CSRF token derived from the session id with the pepper (so nothing more is stored
 * and no page can forge it without the cookie); the sign-in form, before any session, from a cookie of
 * its own. Every signed-in request is checked against the roles' table (./access.ts) before its page.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import type { CookieOptions } from "hono/utils/cookie";
import { constantTimeEqual, hmacSha256Hex, randomSecret, sha256Hex } from "../auth/crypto";
import { now } from "../clock";
import { shardHandle } from "../db/handle";
import { movedTo } from "../db/partner-move";
import { hasActiveAdmin, personById } from "../db/people";
import { apiCredentialsOpenConsole } from "../domain/people";
import { allows, needsRole, type Role } from "../domain/roles";
import type { HonoEnv } from "../env";
import { limiter, personSubject } from "../rate-limit/client";
import type { PersonSessionRecord } from "../rate-limit/durable-object";
import { accessOf } from "./access";
import { clientAddress, recordConsoleAction } from "./audit";
import { errorPage } from "./errors";
import { postedForm } from "./forms";

/** Who is signed in: one of the partner's people, or (in the migration period) the partner's API credentials. */
export type ConsoleUser =
  | { kind: "person"; partnerId: string; personId: string; email: string; role: Role; sessionIdHash: string }
  | { kind: "credentials"; partnerId: string; role: "ADMIN" };

declare module "hono" {
  interface ContextVariableMap {
    /** The console: the CSRF token of the signed-in session, which every form carries. */
    csrfToken: string;
    /** The console: the posted form, read once, its CSRF token checked. */
    form: URLSearchParams;
    /** The console: who is signed in, and with which role. */
    consoleUser: ConsoleUser;
    /** The console: the audit log's name of the action posted (./access.ts). */
    consoleOperation: string;
  }
}

export const IDLE_MS = 30 * 60 * 1000;
export const LIFETIME_MS = 8 * 60 * 60 * 1000;
/** How long a sign-in form may wait before it is sent. */
const SIGN_IN_FORM_SECONDS = 60 * 60;

const SESSION_COOKIE = "console-session";
const SIGN_IN_COOKIE = "console-sign-in";

export const SIGN_IN_PATH = "/console/sign-in";

/** The object that keeps a session of the partner's credentials, named by the hash of its id. */
const sessionObject = (c: Context<HonoEnv>, idHash: string) => limiter(c.env, `console-session:${idHash}`);

/** The object that keeps a person's sessions. */
export const personObject = (c: Context<HonoEnv>, personId: string) => limiter(c.env, personSubject(personId));

/** A person's session cookie: their id, a dot, the secret (whose hash their object keeps). */
const PERSON_COOKIE = /^([0-9A-Z]{26})\.([A-Za-z0-9_-]{43})$/;

/** `__Host-` (Secure, Path=/, no Domain) wherever HTTPS is required; local runs over http have neither. */
const prefix = (c: Context<HonoEnv>) => (c.var.config.REQUIRE_HTTPS ? ("host" as const) : undefined);

function cookieOptions(c: Context<HonoEnv>, maxAgeSeconds: number): CookieOptions {
  const secure = c.var.config.REQUIRE_HTTPS;
  return { path: "/", httpOnly: true, sameSite: "Strict", secure, maxAge: maxAgeSeconds, prefix: prefix(c) };
}

const readCookie = (c: Context<HonoEnv>, name: string) => getCookie(c, name, prefix(c));

const forget = (c: Context<HonoEnv>, name: string) => deleteCookie(c, name, cookieOptions(c, 0));

/** The CSRF token of a session or sign-in form: bound to its cookie, unforgeable without the pepper. */
const csrfTokenOf = (c: Context<HonoEnv>, purpose: "session" | "sign-in", cookie: string) =>
  hmacSha256Hex(c.var.config.AUTH_PEPPER, `console/csrf/v1:${purpose}:${cookie}`);

function sameToken(a: string, b: string): boolean {
  const encoder = new TextEncoder();
  return constantTimeEqual(encoder.encode(a), encoder.encode(b));
}

/** The sign-in form's token, from its cookie (set now if the browser has none). */
export async function signInToken(c: Context<HonoEnv>): Promise<string> {
  let cookie = readCookie(c, SIGN_IN_COOKIE);
  if (!cookie) {
    cookie = randomSecret(32);
    setCookie(c, SIGN_IN_COOKIE, cookie, cookieOptions(c, SIGN_IN_FORM_SECONDS));
  }
  return csrfTokenOf(c, "sign-in", cookie);
}

/** Whether a posted sign-in form carries the token of the browser's sign-in cookie. */
export async function signInFormValid(c: Context<HonoEnv>, form: URLSearchParams): Promise<boolean> {
  const cookie = readCookie(c, SIGN_IN_COOKIE);
  const sent = form.get("csrf");
  return cookie !== undefined && sent !== null && sameToken(sent, await csrfTokenOf(c, "sign-in", cookie));
}

/**
 * Signs the partner in: any session the browser had ends, a new one with a new id begins, and the
 * sign-in form's cookie goes.
 */
export async function openSession(c: Context<HonoEnv>, partnerId: string, shard: number): Promise<void> {
  const previous = readCookie(c, SESSION_COOKIE);
  if (previous) await sessionObject(c, await sha256Hex(previous)).endConsoleSession();
  const id = randomSecret(32);
  const at = now();
  await sessionObject(c, await sha256Hex(id)).openConsoleSession({
    partnerId,
    shard,
    idleUntil: at + IDLE_MS,
    expiresAt: at + LIFETIME_MS,
  });
  setCookie(c, SESSION_COOKIE, id, cookieOptions(c, LIFETIME_MS / 1000));
  // The sign-in form has done its work: its token is not left to sign in again for the next hour.
  forget(c, SIGN_IN_COOKIE);
}

/** Signs a person in: any session the browser had ends, a new one begins in the person's object. */
export async function openPersonSession(
  c: Context<HonoEnv>,
  partner: { partnerId: string; shard: number },
  personId: string,
): Promise<void> {
  await endServerSession(c);
  const secret = randomSecret(32);
  const at = now();
  await personObject(c, personId).openPersonSession({
    idHash: await sha256Hex(secret),
    ...partner,
    personId,
    startedAt: at,
    idleUntil: at + IDLE_MS,
    expiresAt: at + LIFETIME_MS,
    address: clientAddress(c),
    userAgent: c.req.header("User-Agent")?.slice(0, 200) ?? null,
  });
  setCookie(c, SESSION_COOKIE, `${personId}.${secret}`, cookieOptions(c, LIFETIME_MS / 1000));
  forget(c, SIGN_IN_COOKIE);
}

/** Ends the browser's session on the server (its cookie stays, for a new session to replace). */
async function endServerSession(c: Context<HonoEnv>): Promise<void> {
  const id = readCookie(c, SESSION_COOKIE);
  const person = id ? PERSON_COOKIE.exec(id) : null;
  if (person) await personObject(c, person[1]!).endPersonSession(await sha256Hex(person[2]!));
  else if (id) await sessionObject(c, await sha256Hex(id)).endConsoleSession();
}

/** Ends the browser's session on the server, and its cookie. */
export async function endSession(c: Context<HonoEnv>): Promise<void> {
  await endServerSession(c);
  forget(c, SESSION_COOKIE);
}

/** The browser's live session, which this use keeps alive; null when there is none. */
export async function liveSession(c: Context<HonoEnv>) {
  const id = readCookie(c, SESSION_COOKIE);
  if (!id) return null;
  const person = PERSON_COOKIE.exec(id);
  if (person) {
    const idHash = await sha256Hex(person[2]!);
    const session: PersonSessionRecord | null = await personObject(c, person[1]!).usePersonSession(
      idHash,
      now(),
      IDLE_MS,
    );
    return session
      ? { id, idHash, partnerId: session.partnerId, shard: session.shard, personId: session.personId }
      : null;
  }
  const idHash = await sha256Hex(id);
  const session = await sessionObject(c, idHash).useConsoleSession(now(), IDLE_MS);
  return session ? { id, idHash, partnerId: session.partnerId, shard: session.shard, personId: null } : null;
}

/**
 * Who the live session is now: the person as the database holds them (their role this moment), or the
 * partner's credentials while they still open the console. Null when the person was removed or the
 * credentials' period has ended: the session is ended then.
 */
async function userOf(
  c: Context<HonoEnv>,
  session: { idHash: string; partnerId: string; personId: string | null },
): Promise<ConsoleUser | null> {
  const db = await c.var.db.orm();
  if (session.personId !== null) {
    const person = await personById(db, session.partnerId, session.personId);
    if (!person || person.activatedAt === null) return null;
    return {
      kind: "person",
      partnerId: session.partnerId,
      personId: person.id,
      email: person.email,
      role: person.role as Role,
      sessionIdHash: session.idHash,
    };
  }
  // A credentials session is in no list a partner's move updates (src/rate-limit/partner-moved.ts): once
  // its partner has left the session's shard, it ends, and the partner signs in on the new one.
  if ((await movedTo(c.var.db.client, session.partnerId)) !== null) return null;
  const open = apiCredentialsOpenConsole(now(), await hasActiveAdmin(db, session.partnerId));
  return open ? { kind: "credentials", partnerId: session.partnerId, role: "ADMIN" } : null;
}

/**
 * Guards every page but sign-in and setup: without a live session the browser goes to sign-in; with one,
 * the session's partner is the request's (`session`, as the API's token sets it), a POST must carry the
 * session's CSRF token (SameSite=Strict already keeps other sites' requests from carrying the cookie),
 * and the signed-in role must hold the capability the roles' table gives the page (./access.ts): a
 * refused action is recorded in the audit log.
 */
export const requireConsoleSession = createMiddleware<HonoEnv>(async (c, next) => {
  const session = await liveSession(c);
  // From here the request is the partner's: its shard's database (src/db/shards.ts).
  if (session) c.set("db", shardHandle(c.env, session.shard));
  const user = session ? await userOf(c, session) : null;
  if (!session || !user) {
    if (session) await endSession(c);
    forget(c, SESSION_COOKIE);
    return c.redirect(SIGN_IN_PATH, 303);
  }
  // The console answers pages, never the API's wire: its profile is this API's own.
  c.set("session", {
    partnerId: session.partnerId,
    tokenHash: session.idHash,
    wireProfile: "DEFAULT",
    shard: session.shard,
  });
  c.set("consoleUser", user);
  const token = await csrfTokenOf(c, "session", session.id);
  c.set("csrfToken", token);
  if (c.req.method === "POST") {
    const form = await postedForm(c);
    if (!form) return errorPage(c, "bad_request");
    const sent = form.get("csrf");
    if (sent === null || !sameToken(sent, token)) return errorPage(c, "form_expired");
    c.set("form", form);
  }
  const access = accessOf(c.req.method, c.req.path);
  if (access === null) return errorPage(c, "not_found");
  if (access.operation) c.set("consoleOperation", access.operation);
  if (!allows(user.role, access.capability)) {
    if (access.operation) {
      const applicationId = /^\/console\/applications\/([^/]+)\//.exec(c.req.path)?.[1];
      await recordConsoleAction(c, {
        ...(applicationId ? { applicationId } : { subject: c.req.path }),
        outcome: "REFUSED",
        code: "FORBIDDEN",
      });
    }
    return errorPage(c, "forbidden", undefined, needsRole(access.capability, user.role));
  }
  await next();
});
