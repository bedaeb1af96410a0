/**
 * The console's sign-in session and its forms' CSRF tokens.
 *
 * A session is a random id in a cookie (HttpOnly, SameSite=Strict; Secure with the `__Host-` prefix
 * where HTTPS is required), kept server-side in a Durable Object named by the id's hash, never the id
 * (src/rate-limit/durable-object.ts): each sign-in gets a new id, a session ends after 30 minutes unused
 * and 8 hours after sign-in, and signing out ends it there. Every form carries a CSRF token derived from
 * the session id with the pepper (so nothing more is stored and no page can forge it without the
 * cookie); the sign-in form, before any session, from a cookie of its own.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import type { CookieOptions } from "hono/utils/cookie";
import { constantTimeEqual, hmacSha256Hex, randomSecret, sha256Hex } from "../auth/crypto";
import { now } from "../clock";
import type { HonoEnv } from "../env";
import { limiter } from "../rate-limit/client";
import { errorPage } from "./errors";
import { postedForm } from "./forms";

declare module "hono" {
  interface ContextVariableMap {
    /** The console: the CSRF token of the signed-in session, which every form carries. */
    csrfToken: string;
    /** The console: the posted form, read once, its CSRF token checked. */
    form: URLSearchParams;
  }
}

export const IDLE_MS = 30 * 60 * 1000;
export const LIFETIME_MS = 8 * 60 * 60 * 1000;
/** How long a sign-in form may wait before it is sent. */
const SIGN_IN_FORM_SECONDS = 60 * 60;

const SESSION_COOKIE = "console-session";
const SIGN_IN_COOKIE = "console-sign-in";

export const SIGN_IN_PATH = "/console/sign-in";

/** The object that keeps a session, named by the hash of its id. */
const sessionObject = (c: Context<HonoEnv>, idHash: string) => limiter(c.env, `console-session:${idHash}`);

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
export async function openSession(c: Context<HonoEnv>, partnerId: string): Promise<void> {
  const previous = readCookie(c, SESSION_COOKIE);
  if (previous) await sessionObject(c, await sha256Hex(previous)).endConsoleSession();
  const id = randomSecret(32);
  const at = now();
  await sessionObject(c, await sha256Hex(id)).openConsoleSession({
    partnerId,
    idleUntil: at + IDLE_MS,
    expiresAt: at + LIFETIME_MS,
  });
  setCookie(c, SESSION_COOKIE, id, cookieOptions(c, LIFETIME_MS / 1000));
  // The sign-in form has done its work: its token is not left to sign in again for the next hour.
  forget(c, SIGN_IN_COOKIE);
}

/** Ends the browser's session on the server, and its cookie. */
export async function endSession(c: Context<HonoEnv>): Promise<void> {
  const id = readCookie(c, SESSION_COOKIE);
  if (id) await sessionObject(c, await sha256Hex(id)).endConsoleSession();
  forget(c, SESSION_COOKIE);
}

/** The partner of the browser's live session, which this use keeps alive; null when there is none. */
export async function liveSession(c: Context<HonoEnv>) {
  const id = readCookie(c, SESSION_COOKIE);
  if (!id) return null;
  const idHash = await sha256Hex(id);
  const session = await sessionObject(c, idHash).useConsoleSession(now(), IDLE_MS);
  return session ? { id, idHash, partnerId: session.partnerId } : null;
}

/**
 * Guards every page but sign-in: without a live session the browser goes to sign-in; with one, the
 * session's partner is the request's (`session`, as the API's token sets it), and a POST must carry the
 * session's CSRF token (SameSite=Strict already keeps other sites' requests from carrying the cookie).
 */
export const requireConsoleSession = createMiddleware<HonoEnv>(async (c, next) => {
  const session = await liveSession(c);
  if (!session) {
    forget(c, SESSION_COOKIE);
    return c.redirect(SIGN_IN_PATH, 303);
  }
  // The console answers pages, never the API's wire: its profile is this API's own.
  c.set("session", { partnerId: session.partnerId, tokenHash: session.idHash, wireProfile: "DEFAULT" });
  const token = await csrfTokenOf(c, "session", session.id);
  c.set("csrfToken", token);
  if (c.req.method === "POST") {
    const form = await postedForm(c);
    if (!form) return errorPage(c, "bad_request");
    const sent = form.get("csrf");
    if (sent === null || !sameToken(sent, token)) return errorPage(c, "form_expired");
    c.set("form", form);
  }
  await next();
});
