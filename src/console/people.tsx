/**
 * /console/people (ADMIN): the partner's people, each with their role and how far their sign-in is set
 * up; adding a person (the answer is their one-time setup link, shown once: the service sends no
 * e-mail), changing a role, resetting a person's sign-in (a new link; their password and authenticator
 * stop working, their sessions end) and removing a person (their sessions end at once). And what SUPPORT
 * may refund at once. The partner keeps at least one ADMIN (src/domain/people.ts); each action is
 * recorded in the audit log.
 */
import { type Context, Hono } from "hono";
import { randomSecret, sha256Hex } from "../auth/crypto";
import { session } from "../auth/require-session";
import { now } from "../clock";
import {
  addPerson,
  changeRole,
  peopleOf,
  personById,
  removePerson,
  resetSignIn,
  setSupportRefundLimit,
  supportRefundLimitsOf,
} from "../db/people";
import { formatMoney } from "../domain/money";
import { personName, planAddPerson, planRoleChange, SETUP_LINK_MS } from "../domain/people";
import { isRole, ROLES, type Role } from "../domain/roles";
import type { HonoEnv } from "../env";
import { newId } from "../ids";
import { recordConsoleAction } from "./audit";
import { onceForForm, onceToken } from "./forms";
import { parseAmount } from "./input";
import { FormTokens, type Notice, NoticeBox, page, signedIn, Time } from "./layout";
import { personObject } from "./session";

const PATH = "/console/people";
const CURRENCY = /^[A-Z]{3}$/;

/** A new one-time setup link: the token to show once, and what is kept of it. */
async function newSetupLink(c: Context<HonoEnv>, at: number) {
  // The link names the partner's shard, where its person is kept (src/db/shards.ts).
  const token = `${session(c).shard}.${randomSecret(32)}`;
  const origin = c.var.config.PUBLIC_BASE_URL ?? new URL(c.req.url).origin;
  return {
    url: `${origin}/console/setup/${token}`,
    stored: { tokenHash: await sha256Hex(token), expiresAt: at + SETUP_LINK_MS },
  };
}

async function peoplePage(c: Context<HonoEnv>, notice?: Notice, status: 200 | 400 | 422 = 200) {
  const db = await c.var.db.orm();
  const { partnerId } = session(c);
  const [people, limits] = await Promise.all([peopleOf(db, partnerId), supportRefundLimitsOf(db, partnerId)]);
  const timeZone = c.var.config.SERVICE_TIMEZONE;
  const csrf = c.get("csrfToken");
  const at = now();
  const limitList = Object.entries(limits).filter(([, amount]) => amount !== undefined);
  return page(
    c,
    signedIn(c, "People", "people"),
    <>
      <h1>People</h1>
      <NoticeBox notice={notice} />
      <section aria-labelledby="list">
        <h2 id="list">Your people</h2>
        {people.length === 0 ? (
          <p>No people yet: add yourself as the first ADMIN below.</p>
        ) : (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">E-mail</th>
                  <th scope="col">Role</th>
                  <th scope="col">Sign-in</th>
                  <th scope="col">Change</th>
                </tr>
              </thead>
              <tbody>
                {people.map((person) => (
                  <tr>
                    <td class="code">{person.email}</td>
                    <td>
                      <form method="post" action={`${PATH}/${person.id}/role`}>
                        <FormTokens csrf={csrf} />
                        <label for={`role-${person.id}`}>Role of {person.email}</label>
                        <select id={`role-${person.id}`} name="role">
                          {ROLES.map((role) => (
                            <option value={role} selected={role === person.role}>
                              {role}
                            </option>
                          ))}
                        </select>
                        <button type="submit">Change role</button>
                      </form>
                    </td>
                    <td>
                      {person.activatedAt !== null ? (
                        <>
                          Set up <Time at={person.activatedAt} timeZone={timeZone} />
                        </>
                      ) : person.setupExpiresAt !== null && person.setupExpiresAt > at ? (
                        <>
                          Setup link valid until <Time at={person.setupExpiresAt} timeZone={timeZone} />
                        </>
                      ) : (
                        "Setup link expired: reset to make a new one"
                      )}
                    </td>
                    <td>
                      <form method="post" action={`${PATH}/${person.id}/reset`}>
                        <FormTokens csrf={csrf} once={onceToken()} />
                        <label class="check">
                          <input type="checkbox" name="confirm" value="yes" required />
                          <span>Reset {person.email}'s password and authenticator</span>
                        </label>
                        <button type="submit">Reset sign-in</button>
                      </form>
                      <form method="post" action={`${PATH}/${person.id}/remove`}>
                        <FormTokens csrf={csrf} />
                        <label class="check">
                          <input type="checkbox" name="confirm" value="yes" required />
                          <span>Remove {person.email} (their sessions end at once)</span>
                        </label>
                        <button type="submit" class="danger">
                          Remove
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <div class="grid">
        <section aria-labelledby="add">
          <h2 id="add">Add a person</h2>
          <p>
            The answer is their setup link, valid for a day and shown once: pass it on to them yourself. With it they
            choose a password and add the console to an authenticator app.
          </p>
          <form method="post" action={PATH}>
            <FormTokens csrf={csrf} once={onceToken()} />
            <div class="field">
              <label for="email">E-mail</label>
              <input id="email" name="email" type="email" autocomplete="off" required maxlength={254} />
            </div>
            <div class="field">
              <label for="role">Role</label>
              <select id="role" name="role">
                {ROLES.map((role) => (
                  <option value={role} selected={role === "VIEWER"}>
                    {role}
                  </option>
                ))}
              </select>
            </div>
            <button type="submit" class="primary">
              Add and show the setup link
            </button>
          </form>
          <dl class="facts">
            <dt>VIEWER</dt>
            <dd>reads everything but secrets</dd>
            <dt>SUPPORT</dt>
            <dd>also resends, cancels, extends, marks sent, refunds up to the limit beside</dd>
            <dt>FINANCE</dt>
            <dd>also refunds any amount, reads payouts and their reports</dd>
            <dt>ADMIN</dt>
            <dd>also manages people, rotates the signing secret, replays, reads the audit log</dd>
          </dl>
        </section>
        <section aria-labelledby="limit">
          <h2 id="limit">Refund limit of SUPPORT</h2>
          <p>
            The most a person with the SUPPORT role refunds at once, per currency. Without a limit, SUPPORT refunds
            nothing in that currency.
          </p>
          {limitList.length === 0 ? (
            <p class="muted">No limit set.</p>
          ) : (
            <ul>
              {limitList.map(([currency, amount]) => (
                <li>{formatMoney(amount!, currency)}</li>
              ))}
            </ul>
          )}
          <form method="post" action={`${PATH}/refund-limit`}>
            <FormTokens csrf={csrf} />
            <div class="field">
              <label for="limit-amount">Amount</label>
              <input id="limit-amount" name="amount" inputmode="decimal" autocomplete="off" required maxlength={20} />
            </div>
            <div class="field">
              <label for="limit-currency">Currency</label>
              <input id="limit-currency" name="currency" required maxlength={3} value="CZK" />
            </div>
            <button type="submit">Set the limit</button>
          </form>
        </section>
      </div>
    </>,
    status,
  );
}

/** The one page that shows a setup link: never in an address, never stored by the browser. */
function setupLinkPage(c: Context<HonoEnv>, email: string, url: string, expiresAt: number) {
  return page(
    c,
    { ...signedIn(c, "Setup link", "people"), copyScript: true },
    <section>
      <h1>Setup link of {email}</h1>
      <p>
        <strong>Shown only now.</strong> Give it to {email} yourself (the service sends no e-mail). It works once, until{" "}
        <Time at={expiresAt} timeZone={c.var.config.SERVICE_TIMEZONE} />.
      </p>
      <div class="field">
        <label for="new-secret">Setup link</label>
        <input id="new-secret" class="secret" readonly value={url} autocomplete="off" spellcheck={false} />
      </div>
      <div class="actions">
        <button type="button" data-copy="new-secret" hidden>
          Copy
        </button>
        <span id="new-secret-status" role="status" />
      </div>
      <p>
        <a href={PATH}>Back to people</a>
      </p>
    </section>,
  );
}

const refused = (heading: string): Notice => ({ kind: "refused", heading });

export const people = new Hono<HonoEnv>()
  .get(PATH, (c) => peoplePage(c))
  .post(PATH, async (c) => {
    const form = c.get("form");
    const email = personName(form.get("email") ?? "");
    const role = form.get("role") ?? "";
    if (email === null || !isRole(role)) {
      return peoplePage(c, refused("Enter the person's e-mail address and choose a role."), 400);
    }
    return onceForForm(c, async () => {
      const db = await c.var.db.orm();
      const { partnerId } = session(c);
      const plan = planAddPerson(await peopleOf(db, partnerId), email);
      const at = now();
      const link = await newSetupLink(c, at);
      const added = plan.ok && (await addPerson(db, { id: newId(at), partnerId, email, role }, link.stored, at));
      if (!added) {
        const why = plan.ok ? `${email} is one of your people already` : plan.problems[0]!.message;
        await recordConsoleAction(c, { subject: email, outcome: "REFUSED", code: "INVALID_VALUE" });
        return peoplePage(c, refused(`Not added: ${why}.`), 422);
      }
      await recordConsoleAction(c, { subject: `${email} (${role})`, outcome: "SUCCEEDED" });
      return setupLinkPage(c, email, link.url, link.stored.expiresAt);
    });
  })
  .post(`${PATH}/refund-limit`, async (c) => {
    const form = c.get("form");
    const amount = parseAmount(form.get("amount") ?? "");
    const currency = (form.get("currency") ?? "").trim().toUpperCase();
    if (amount === null || !CURRENCY.test(currency)) {
      return peoplePage(c, refused("Enter an amount such as 500.00 and a currency such as CZK."), 400);
    }
    await setSupportRefundLimit(await c.var.db.orm(), session(c).partnerId, currency, amount);
    await recordConsoleAction(c, { amount, currency, outcome: "SUCCEEDED" });
    return peoplePage(c, {
      kind: "done",
      heading: `SUPPORT now refunds at most ${formatMoney(amount, currency)} at once.`,
    });
  })
  .post(`${PATH}/:personId/:change{role|reset|remove}`, async (c) => {
    const { personId, change } = c.req.param();
    const form = c.get("form");
    const db = await c.var.db.orm();
    const { partnerId } = session(c);
    const person = await personById(db, partnerId, personId);
    if (!person) return peoplePage(c, refused("There is no such person: someone removed them meanwhile."), 422);
    const role = change === "role" ? (form.get("role") ?? "") : null;
    if (role !== null && !isRole(role)) return peoplePage(c, refused("Choose a role from the list."), 400);
    if (change !== "role" && form.get("confirm") !== "yes")
      return peoplePage(c, refused("Tick the box to confirm."), 400);
    if (change !== "reset") {
      const everyone = (await peopleOf(db, partnerId)).map((p) => ({ id: p.id, role: p.role as Role }));
      const planned = planRoleChange(everyone, personId, role);
      const done =
        planned.ok &&
        (role !== null
          ? await changeRole(db, partnerId, personId, role, now())
          : await removePerson(db, partnerId, personId));
      const subject = role !== null ? `${person.email}: ${person.role} → ${role}` : person.email;
      await recordConsoleAction(c, {
        subject,
        ...(done ? { outcome: "SUCCEEDED" } : { outcome: "REFUSED", code: "LAST_ADMIN" }),
      });
      if (!done)
        return peoplePage(c, refused(`${person.email} is your last ADMIN: make another person ADMIN first.`), 422);
      if (role !== null) return peoplePage(c, { kind: "done", heading: `${person.email} is ${role} now.` });
      await personObject(c, personId).endPersonSessions();
      return peoplePage(c, { kind: "done", heading: `${person.email} was removed; their sessions have ended.` });
    }
    return onceForForm(c, async () => {
      const at = now();
      const link = await newSetupLink(c, at);
      await resetSignIn(db, partnerId, personId, link.stored, at);
      await personObject(c, personId).endPersonSessions();
      await recordConsoleAction(c, { subject: person.email, outcome: "SUCCEEDED" });
      return setupLinkPage(c, person.email, link.url, link.stored.expiresAt);
    });
  });
