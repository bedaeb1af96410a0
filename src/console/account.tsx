/**
 * /console/account: the signed-in person's own sign-in: who they are and their role, and their sessions
 * (when each began and was last used, from where, with what), with "sign out everywhere", which ends every
 * one of them, this one too. A session of the partner's credentials has no person, and no list.
 */
import { type Context, Hono } from "hono";
import { now } from "../clock";
import { API_CREDENTIALS_OPEN_CONSOLE_UNTIL } from "../domain/people";
import type { HonoEnv } from "../env";
import { recordConsoleAction } from "./audit";
import { FormTokens, page, signedIn, Time } from "./layout";
import { endSession, IDLE_MS, personObject, SIGN_IN_PATH } from "./session";

const PATH = "/console/account";

async function accountPage(c: Context<HonoEnv>) {
  const user = c.get("consoleUser");
  const timeZone = c.var.config.SERVICE_TIMEZONE;
  const csrf = c.get("csrfToken");
  if (user.kind === "credentials") {
    return page(
      c,
      signedIn(c, "Your sign-in", "account"),
      <section>
        <h1>Your sign-in</h1>
        <p>
          You are signed in with the partner's API credentials, which act as an ADMIN until the migration period ends (
          <Time at={API_CREDENTIALS_OPEN_CONSOLE_UNTIL} timeZone={timeZone} />) or an ADMIN of your people has set up
          their sign-in. Add your people, yourself first, on the <a href="/console/people">People</a> page.
        </p>
      </section>,
    );
  }
  const sessions = await personObject(c, user.personId).personSessions(now());
  return page(
    c,
    signedIn(c, "Your sign-in", "account"),
    <>
      <h1>Your sign-in</h1>
      <section aria-labelledby="you">
        <h2 id="you">You</h2>
        <dl class="facts">
          <dt>E-mail</dt>
          <dd class="code">{user.email}</dd>
          <dt>Role</dt>
          <dd>{user.role}</dd>
        </dl>
      </section>
      <section aria-labelledby="sessions">
        <h2 id="sessions">Your sessions</h2>
        <p>
          Each ends after {IDLE_MS / 60_000} minutes unused or 8 hours after it began. If one is not yours, sign out
          everywhere and ask an admin to reset your sign-in.
        </p>
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Signed in</th>
                <th scope="col">Ends if unused</th>
                <th scope="col">From</th>
                <th scope="col">Browser</th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <tr>
                  <td>
                    <Time at={s.startedAt} timeZone={timeZone} />
                    {s.idHash === user.sessionIdHash ? <strong> (this one)</strong> : null}
                  </td>
                  <td>
                    <Time at={s.idleUntil} timeZone={timeZone} />
                  </td>
                  <td class="code">{s.address ?? "–"}</td>
                  <td>{s.userAgent?.slice(0, 80) ?? "–"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <form method="post" action={`${PATH}/sign-out-everywhere`}>
          <FormTokens csrf={csrf} />
          <button type="submit" class="danger">
            Sign out everywhere
          </button>
        </form>
      </section>
    </>,
  );
}

export const account = new Hono<HonoEnv>()
  .get(PATH, (c) => accountPage(c))
  .post(`${PATH}/sign-out-everywhere`, async (c) => {
    const user = c.get("consoleUser");
    await recordConsoleAction(c, { outcome: "SUCCEEDED" });
    if (user.kind === "person") await personObject(c, user.personId).endPersonSessions();
    await endSession(c);
    return c.redirect(SIGN_IN_PATH, 303);
  });
