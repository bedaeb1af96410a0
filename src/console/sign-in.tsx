/**
 * Signing in and out. The user name and password are the partner's, checked and throttled exactly as the
 * API's login checks them (src/auth/partner-login.ts): the same counts per user name and per address,
 * shared by both, so the console is no second door for guessing.
 */
import { type Context, Hono } from "hono";
import { checkLogin, MAX_PASSWORD_LENGTH, MAX_USERNAME_LENGTH } from "../auth/partner-login";
import { now } from "../clock";
import type { HonoEnv } from "../env";
import { errorPage } from "./errors";
import { postedForm } from "./forms";
import { FormTokens, type Notice, NoticeBox, page } from "./layout";
import { endSession, liveSession, openSession, SIGN_IN_PATH, signInFormValid, signInToken } from "./session";

const HOME = "/console/applications";

async function signInPage(c: Context<HonoEnv>, notice?: Notice, username = "", status: 200 | 400 | 429 = 200) {
  const csrf = await signInToken(c);
  return page(
    c,
    { title: "Sign in" },
    <>
      <h1>Sign in</h1>
      <NoticeBox notice={notice} />
      <section>
        <form method="post" action={SIGN_IN_PATH}>
          <FormTokens csrf={csrf} />
          <div class="field">
            <label for="username">User name</label>
            <input
              id="username"
              name="username"
              autocomplete="username"
              required
              maxlength={MAX_USERNAME_LENGTH}
              value={username}
            />
          </div>
          <div class="field">
            <label for="password">Password</label>
            <input
              id="password"
              name="password"
              type="password"
              autocomplete="current-password"
              required
              maxlength={MAX_PASSWORD_LENGTH}
            />
          </div>
          <button type="submit" class="primary">
            Sign in
          </button>
        </form>
        <p class="muted">Use your partner account: the same user name and password as the API's login.</p>
      </section>
    </>,
    status,
  );
}

export const signIn = new Hono<HonoEnv>()
  .get(SIGN_IN_PATH, async (c) => ((await liveSession(c)) ? c.redirect(HOME, 303) : signInPage(c)))
  .post(SIGN_IN_PATH, async (c) => {
    const form = await postedForm(c);
    if (!form) return errorPage(c, "bad_request");
    if (!(await signInFormValid(c, form))) return errorPage(c, "form_expired");
    const username = form.get("username") ?? "";
    const password = form.get("password") ?? "";
    const tooLong = username.length > MAX_USERNAME_LENGTH || password.length > MAX_PASSWORD_LENGTH;
    if (username.length < 1 || password.length < 1 || tooLong) {
      return signInPage(
        c,
        { kind: "refused", heading: "Enter your user name and password." },
        username.slice(0, MAX_USERNAME_LENGTH),
        400,
      );
    }
    const check = await checkLogin(
      c.env,
      c.var.config,
      { username, password, address: c.req.header("CF-Connecting-IP") },
      now(),
    );
    if (check.outcome === "throttled") {
      c.header("Retry-After", String(check.retryAfter));
      const minutes = Math.ceil(check.retryAfter / 60);
      return signInPage(
        c,
        {
          kind: "refused",
          heading: "Too many failed sign-ins",
          lines: [
            // The pause may be the user name's or the client address's: the page says neither.
            `Signing in is paused after too many failed attempts. Please try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
          ],
        },
        username,
        429,
      );
    }
    if (check.outcome === "wrong") {
      return signInPage(c, { kind: "refused", heading: "The user name or password is wrong." }, username, 400);
    }
    await openSession(c, check.partnerId);
    return c.redirect(HOME, 303);
  });

/** Signing out ends the session on the server; the guard has checked the form's CSRF token. */
export const signOut = new Hono<HonoEnv>().post("/console/sign-out", async (c) => {
  await endSession(c);
  return c.redirect(SIGN_IN_PATH, 303);
});
