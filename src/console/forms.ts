/**
 * What the console's forms post besides their fields. Every POST carries the session's CSRF token
 * (checked by the session guard, src/console/session.ts); a form whose work must be done once also
 * carries a one-time token, made when the form is shown, which keys that work in the API's idempotency
 * store (src/http/idempotency.ts `once`): a double-click, or the same confirmation sent again, sends the
 * same token and gets the first answer, never a second refund. A confirmation page shown anew (reloaded,
 * or reached again by the back button: the console's pages are not cached) is a new form with a new token.
 */
import type { Context } from "hono";
import { randomSecret } from "../auth/crypto";
import type { HonoEnv } from "../env";
import { once } from "../http/idempotency";
import { errorPage } from "./errors";

export const onceToken = () => randomSecret(16);

const ONCE = /^[A-Za-z0-9_-]{16,64}$/;

/** A posted form as the console reads it: URL-encoded, as its pages send it (null for anything else). */
export async function postedForm(c: Context<HonoEnv>): Promise<URLSearchParams | null> {
  const type = c.req.header("Content-Type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return null;
  return new URLSearchParams(new TextDecoder().decode(await c.req.arrayBuffer()));
}

/** Runs `work` once per one-time token of the posted form; the same token again answers the first answer. */
export async function onceForForm(c: Context<HonoEnv>, work: () => Promise<Response>): Promise<Response> {
  const form = c.get("form");
  const token = form.get("once");
  if (token === null || !ONCE.test(token)) return errorPage(c, "bad_request");
  // The form's fields, encoded again, are the body the first answer is kept for.
  const replayed = await once(c, `console:${token}`, form.toString(), async () => {
    c.res = await work();
  });
  return replayed ?? c.res;
}
