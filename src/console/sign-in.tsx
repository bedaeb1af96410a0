/**
 * Signing in and out. A person signs in with their partner's account name, their e-mail, their password
 * and a code of their authenticator (src/auth/person-sign-in.ts); during the migration period the
 * partner's own user name and password still sign in (src/domain/people.ts), checked and throttled
 * exactly as the API's login checks them (src/auth/partner-login.ts): the same counts per user name and
 * per address, shared by both, so the console is no second door for guessing. Each sign-in, and each
 * refused one of a known person, is recorded in the audit log.
 */
import { type Context, Hono } from "hono";
import { checkLogin, MAX_PASSWORD_LENGTH, MAX_USERNAME_LENGTH } from "../auth/partner-login";
import { checkPersonSignIn } from "../auth/person-sign-in";
import { now } from "../clock";
import { shardHandle } from "../db/handle";
import { partnerByUsername } from "../db/partners";
import { hasActiveAdmin } from "../db/people";
import {
  API_CREDENTIALS_OPEN_CONSOLE_UNTIL,
  apiCredentialsOpenConsole,
  MAX_EMAIL_LENGTH,
  personName,
} from "../domain/people";
import type { HonoEnv } from "../env";
import { CREDENTIALS_ACTOR, clientAddress, personActor, recordConsoleAction } from "./audit";
import { errorPage } from "./errors";
import { postedForm } from "./forms";
import { FormTokens, type Notice, NoticeBox, page, shownTime } from "./layout";
import {
  endSession,
  liveSession,
  openPersonSession,
  openSession,
  SIGN_IN_PATH,
  signInFormValid,
  signInToken,
} from "./session";

const HOME = "/console/applications";

interface Filled {
  account: string;
  username: string;
}

async function signInPage(c: Context<HonoEnv>, notice?: Notice, filled?: Filled, status: 200 | 400 | 403 | 429 = 200) {
  const csrf = await signInToken(c);
  const until = shownTime(API_CREDENTIALS_OPEN_CONSOLE_UNTIL, c.var.config.SERVICE_TIMEZONE);
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
            <label for="account">Partner account</label>
            <input
              id="account"
              name="account"
              autocomplete="organization"
              maxlength={MAX_USERNAME_LENGTH}
              value={filled?.account ?? ""}
              aria-describedby="account-hint"
            />
            <p class="hint" id="account-hint">
              Your company's account name, as on your setup link's page.
            </p>
          </div>
          <div class="field">
            <label for="username">User name</label>
            <input
              id="username"
              name="username"
              autocomplete="username"
              required
              maxlength={Math.max(MAX_USERNAME_LENGTH, MAX_EMAIL_LENGTH)}
              value={filled?.username ?? ""}
              aria-describedby="username-hint"
            />
            <p class="hint" id="username-hint">
              Your e-mail address.
            </p>
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
          <div class="field">
            <label for="code">Authentication code</label>
            <input
              id="code"
              name="code"
              inputmode="numeric"
              autocomplete="one-time-code"
              maxlength={8}
              aria-describedby="code-hint"
            />
            <p class="hint" id="code-hint">
              The 6 digits your authenticator app shows now.
            </p>
          </div>
          <button type="submit" class="primary">
            Sign in
          </button>
        </form>
        <p class="muted">
          Until {until}, the partner's API user name and password still open the console (leave Partner account and
          Authentication code empty), unless your admin has set up their own sign-in.
        </p>
      </section>
    </>,
    status,
  );
}

function throttled(c: Context<HonoEnv>, retryAfter: number, filled: Filled) {
  c.header("Retry-After", String(retryAfter));
  const minutes = Math.ceil(retryAfter / 60);
  return signInPage(
    c,
    {
      kind: "refused",
      heading: "Too many failed sign-ins",
      lines: [
        // The pause may be the person's, the user name's or the client address's: the page says none.
        `Signing in is paused after too many failed attempts. Please try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
      ],
    },
    filled,
    429,
  );
}

/** The partner's API credentials, while they still open the console. */
async function signInWithCredentials(c: Context<HonoEnv>, username: string, password: string) {
  const filled = { account: "", username };
  const check = await checkLogin(
    c.env,
    c.var.config,
    { username, password, address: clientAddress(c) ?? undefined },
    now(),
  );
  if (check.outcome === "throttled") return throttled(c, check.retryAfter, filled);
  if (check.outcome === "wrong") {
    return signInPage(c, { kind: "refused", heading: "The user name or password is wrong." }, filled, 400);
  }
  // From here the request is the partner's: its shard's database (src/db/shards.ts).
  c.set("db", shardHandle(c.env, check.shard));
  const open = apiCredentialsOpenConsole(now(), await hasActiveAdmin(await c.var.db.orm(), check.partnerId));
  if (!open) {
    await recordConsoleAction(c, {
      operation: "signIn",
      actor: CREDENTIALS_ACTOR,
      partnerId: check.partnerId,
      outcome: "REFUSED",
      code: "CREDENTIALS_RETIRED",
    });
    const heading = "The partner's API credentials no longer open the console.";
    const lines = [
      "Sign in as yourself: your partner account, your e-mail, your password and your authenticator's code. An admin of your account gives you a setup link; the API's login keeps these credentials.",
    ];
    return signInPage(c, { kind: "refused", heading, lines }, filled, 403);
  }
  await recordConsoleAction(c, {
    operation: "signIn",
    actor: CREDENTIALS_ACTOR,
    partnerId: check.partnerId,
    outcome: "SUCCEEDED",
  });
  await openSession(c, check.partnerId, check.shard);
  return c.redirect(HOME, 303);
}

const WHY = { credentials: "WRONG_CREDENTIALS", code: "WRONG_CODE", replayed: "CODE_USED" } as const;

/** One of the partner's people, with their authenticator's code. */
async function signInAsPerson(c: Context<HonoEnv>, account: string, username: string, form: URLSearchParams) {
  const filled = { account, username };
  const email = personName(username);
  const password = form.get("password") ?? "";
  const code = form.get("code") ?? "";
  const wrong = () =>
    signInPage(c, { kind: "refused", heading: "The account, e-mail, password or code is wrong." }, filled, 400);
  if (email === null) return wrong();
  const attempt = { account, email, password, code, address: clientAddress(c) };
  // The account's people are kept in its shard (src/db/shards.ts); an unknown account is looked for in
  // shard 0, so that it takes the time a known one does.
  const shard = (await partnerByUsername(await c.var.db.orm(), account))?.shard ?? 0;
  c.set("db", shardHandle(c.env, shard));
  const check = await checkPersonSignIn(c.env, c.var.config, await c.var.db.orm(), attempt, now());
  if (check.outcome === "throttled") return throttled(c, check.retryAfter, filled);
  if (check.outcome === "wrong") {
    if (check.person) {
      const { partnerId, personId, email: name } = check.person;
      await recordConsoleAction(c, {
        operation: "signIn",
        actor: personActor(personId, name),
        partnerId,
        outcome: "REFUSED",
        code: WHY[check.why],
      });
    }
    return wrong();
  }
  await recordConsoleAction(c, {
    operation: "signIn",
    actor: personActor(check.personId, check.email),
    partnerId: check.partnerId,
    outcome: "SUCCEEDED",
  });
  await openPersonSession(c, { partnerId: check.partnerId, shard }, check.personId);
  return c.redirect(HOME, 303);
}

export const signIn = new Hono<HonoEnv>()
  .get(SIGN_IN_PATH, async (c) => ((await liveSession(c)) ? c.redirect(HOME, 303) : signInPage(c)))
  .post(SIGN_IN_PATH, async (c) => {
    const form = await postedForm(c);
    if (!form) return errorPage(c, "bad_request");
    if (!(await signInFormValid(c, form))) return errorPage(c, "form_expired");
    const account = (form.get("account") ?? "").trim();
    const username = form.get("username") ?? "";
    const password = form.get("password") ?? "";
    const tooLong =
      account.length > MAX_USERNAME_LENGTH ||
      username.length > Math.max(MAX_USERNAME_LENGTH, MAX_EMAIL_LENGTH) ||
      password.length > MAX_PASSWORD_LENGTH ||
      (form.get("code") ?? "").length > 16;
    if (username.length < 1 || password.length < 1 || tooLong) {
      return signInPage(
        c,
        { kind: "refused", heading: "Enter your user name and password." },
        { account: account.slice(0, MAX_USERNAME_LENGTH), username: username.slice(0, MAX_USERNAME_LENGTH) },
        400,
      );
    }
    return account === "" ? signInWithCredentials(c, username, password) : signInAsPerson(c, account, username, form);
  });

/** Signing out ends the session on the server; the guard has checked the form's CSRF token. */
export const signOut = new Hono<HonoEnv>().post("/console/sign-out", async (c) => {
  await recordConsoleAction(c, { outcome: "SUCCEEDED" });
  await endSession(c);
  return c.redirect(SIGN_IN_PATH, 303);
});
