/**
 * GET and POST /console/setup/:token: a person sets up their sign-in through the one-time link an admin
 * gave them (valid a day): a password, hashed as partners' are, and an authenticator app (RFC 6238),
 * shown as a QR code and as text, confirmed by one of its codes. The link works once: the first setup
 * that lands takes it, and signs the person in. The authenticator's secret is derived from the link's
 * token with the pepper, so nothing is stored before the setup lands; then it is stored sealed. The page
 * is the one place that shows the secret.
 */
import { type Context, Hono } from "hono";
import { raw } from "hono/html";
import encodeQR from "qr";
import { hashPassword, hmacSha256Hex, sealSecret, sha256Hex } from "../auth/crypto";
import { MAX_PASSWORD_LENGTH } from "../auth/partner-login";
import { now } from "../clock";
import { shardHandle } from "../db/handle";
import { completeSetup, personOfSetupLink } from "../db/people";
import { everyShard } from "../db/shards";
import { MIN_PASSWORD_LENGTH, passwordProblem } from "../domain/people";
import { acceptedTotpStep, totpSecretOf, totpUri } from "../domain/totp";
import type { HonoEnv } from "../env";
import { personActor, recordConsoleAction } from "./audit";
import { errorPage } from "./errors";
import { postedForm } from "./forms";
import { FormTokens, type Notice, NoticeBox, page, shownTime } from "./layout";
import { openPersonSession, signInFormValid, signInToken } from "./session";

const SETUP_PATH = "/console/setup/:token";
/** What an authenticator app shows as the code's issuer. */
const ISSUER = "Partner console";
/** `<shard>.<secret>`: the link names the shard its person is kept in (src/db/shards.ts). */
const TOKEN = /^(\d{1,3})\.[A-Za-z0-9_-]{43}$/;

/** The authenticator's secret of a setup link: HMAC(pepper, token), 20 bytes, base32. */
async function setupSecret(pepper: string, token: string): Promise<string> {
  const hex = await hmacSha256Hex(pepper, `console/totp-setup/v1:${token}`);
  return totpSecretOf(Uint8Array.from(hex.match(/../g)!.map((byte) => Number.parseInt(byte, 16))));
}

/** The person whose valid setup link this is, with their account name; null for any other token. */
async function linkOf(c: Context<HonoEnv>, token: string) {
  const shard = TOKEN.exec(token)?.[1];
  if (shard === undefined || everyShard(c.env).length <= Number(shard)) return null;
  c.set("db", shardHandle(c.env, Number(shard)));
  const found = await personOfSetupLink(await c.var.db.orm(), await sha256Hex(token), now());
  return found && { ...found, shard: Number(shard) };
}

function QrCode({ uri }: { uri: string }) {
  // The library's SVG is a path of squares only: no text of ours is in it, and it needs no style attribute.
  const svg = encodeQR(uri, "svg").replace(
    "<svg ",
    '<svg class="qr" role="img" aria-label="QR code of your authenticator secret" ',
  );
  return raw(svg);
}

async function setupPage(c: Context<HonoEnv>, token: string, notice?: Notice, status: 200 | 400 = 200) {
  const link = await linkOf(c, token);
  if (!link) return errorPage(c, "setup_link_gone");
  const { person, account } = link;
  const secret = await setupSecret(c.var.config.AUTH_PEPPER, token);
  const csrf = await signInToken(c);
  return page(
    c,
    { title: "Set up your sign-in" },
    <>
      <h1>Set up your sign-in</h1>
      <NoticeBox notice={notice} />
      <section aria-labelledby="who">
        <h2 id="who">You</h2>
        <dl class="facts">
          <dt>Partner account</dt>
          <dd class="code">{account}</dd>
          <dt>E-mail (your user name)</dt>
          <dd class="code">{person.email}</dd>
          <dt>Role</dt>
          <dd>{person.role}</dd>
          <dt>This link works until</dt>
          <dd>{shownTime(person.setupExpiresAt, c.var.config.SERVICE_TIMEZONE)}</dd>
        </dl>
        <p>You sign in with all of these: keep the partner account's name.</p>
      </section>
      <form method="post" action={`/console/setup/${token}`}>
        <FormTokens csrf={csrf} />
        <section aria-labelledby="password-heading">
          <h2 id="password-heading">1. Choose a password</h2>
          <div class="field">
            <label for="new-password">New password</label>
            <input
              id="new-password"
              name="password"
              type="password"
              autocomplete="new-password"
              required
              minlength={MIN_PASSWORD_LENGTH}
              maxlength={MAX_PASSWORD_LENGTH}
              aria-describedby="new-password-hint"
            />
            <p class="hint" id="new-password-hint">
              At least {MIN_PASSWORD_LENGTH} characters.
            </p>
          </div>
          <div class="field">
            <label for="repeat-password">Repeat the password</label>
            <input
              id="repeat-password"
              name="repeat"
              type="password"
              autocomplete="new-password"
              required
              maxlength={MAX_PASSWORD_LENGTH}
            />
          </div>
        </section>
        <section aria-labelledby="authenticator-heading">
          <h2 id="authenticator-heading">2. Add the console to your authenticator app</h2>
          <p>Scan the QR code with any authenticator app (time-based codes, RFC 6238), or type the secret below.</p>
          <QrCode uri={totpUri(secret, ISSUER, `${account}:${person.email}`)} />
          <div class="field">
            <label for="totp-secret">Secret</label>
            <input id="totp-secret" class="secret" readonly value={secret} autocomplete="off" spellcheck={false} />
          </div>
          <div class="field">
            <label for="setup-code">Code from the app</label>
            <input
              id="setup-code"
              name="code"
              inputmode="numeric"
              autocomplete="one-time-code"
              required
              maxlength={8}
            />
          </div>
        </section>
        <button type="submit" class="primary">
          Finish setup and sign in
        </button>
      </form>
    </>,
    status,
  );
}

export const setup = new Hono<HonoEnv>()
  .get(SETUP_PATH, (c) => setupPage(c, c.req.param("token")))
  .post(SETUP_PATH, async (c) => {
    const token = c.req.param("token");
    const form = await postedForm(c);
    if (!form) return errorPage(c, "bad_request");
    if (!(await signInFormValid(c, form))) return errorPage(c, "form_expired");
    const link = await linkOf(c, token);
    if (!link) return errorPage(c, "setup_link_gone");
    const { person } = link;
    const password = form.get("password") ?? "";
    const problem = passwordProblem(password, form.get("repeat") ?? "", MAX_PASSWORD_LENGTH);
    if (problem) return setupPage(c, token, { kind: "refused", heading: problem }, 400);
    const at = now();
    const secret = await setupSecret(c.var.config.AUTH_PEPPER, token);
    const step = acceptedTotpStep(secret, form.get("code") ?? "", at, null);
    if (step === null) {
      const heading = "The code is not the app's code now: check the app shows the console, and type its current code.";
      return setupPage(c, token, { kind: "refused", heading }, 400);
    }
    const pepper = c.var.config.AUTH_PEPPER;
    const done = await completeSetup(
      await c.var.db.orm(),
      person.id,
      { tokenHash: await sha256Hex(token), at },
      {
        passwordHash: await hashPassword(password, pepper),
        totpSecretCiphertext: await sealSecret(secret, pepper, "totp-secret"),
        totpLastStep: step,
      },
    );
    // Another setup through the same link landed first.
    if (!done) return errorPage(c, "setup_link_gone");
    await recordConsoleAction(c, {
      operation: "completeSetup",
      actor: personActor(person.id, person.email),
      partnerId: person.partnerId,
      outcome: "SUCCEEDED",
    });
    await openPersonSession(c, { partnerId: person.partnerId, shard: link.shard }, person.id);
    return c.redirect("/console/applications", 303);
  });
