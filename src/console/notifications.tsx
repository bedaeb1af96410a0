/**
 * /console/notifications: the partner's delivery log across applications (the API's own list,
 * src/collections/notifications.ts), replaying failed notifications of a time range, and rotating the
 * signing secret. Replay and rotation are the API's own (src/notifications/), with its limits, done once
 * per form through the API's idempotency store.
 */
import { type Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import { session } from "../auth/require-session";
import { now } from "../clock";
import { keysetPage } from "../collections/keyset";
import { partnerEvents, partnerNotificationsCollection } from "../collections/notifications";
import { latestAttemptsOf } from "../db/events";
import { signingSecretsOf } from "../db/partners";
import { DELIVERY_STATUSES } from "../domain/notification-schedule";
import { EVENT_TYPES } from "../domain/plan";
import { needsRole } from "../domain/roles";
import type { HonoEnv } from "../env";
import { MAX_REPLAY, REPLAY_INTERVAL_SECONDS, replay } from "../notifications/redelivery";
import { rotateSigningSecret } from "../notifications/rotation";
import { applicationPath } from "./application";
import { recordConsoleAction, refusedWith } from "./audit";
import { onceForForm, onceToken } from "./forms";
import { dateRangeTerms, listRequest, wallClockInstant } from "./input";
import {
  FilterActions,
  FormTokens,
  may,
  type Notice,
  NoticeBox,
  Paging,
  page,
  StateBadge,
  shownTime,
  signedIn,
  Time,
} from "./layout";

const PATH = "/console/notifications";
const PAGE_SIZE = 25;

/** A form the signed-in role may send, or the role it needs. */
function Offered({
  c,
  capability,
  children,
}: {
  c: Context<HonoEnv>;
  capability: "replay" | "rotate";
  children: Child;
}) {
  return may(c, capability) ? children : <p class="muted">{needsRole(capability, c.get("consoleUser").role)}</p>;
}

/** "86400 s" as people say it. */
function duration(seconds: number): string {
  const [value, unit] =
    seconds % 3600 === 0
      ? [seconds / 3600, "hour"]
      : seconds % 60 === 0
        ? [seconds / 60, "minute"]
        : [seconds, "second"];
  return `${value} ${unit}${value === 1 ? "" : "s"}`;
}

interface Query {
  status: string;
  eventType: string;
  from: string;
  to: string;
  applicationId: string;
}

const FIELDS = ["status", "eventType", "from", "to", "applicationId"] as const;

function queryOf(url: URL): Query {
  const field = (name: string) => url.searchParams.get(name)?.trim() ?? "";
  return Object.fromEntries(FIELDS.map((name) => [name, field(name)])) as unknown as Query;
}

/** The delivery log as the API lists it, newest first, filtered by the form's fields. */
async function deliveryLog(c: Context<HonoEnv>, query: Query) {
  const timeZone = c.var.config.SERVICE_TIMEZONE;
  const terms: { name: string; operator: "eq" | "gteq" | "lt"; values: string[] }[] = [];
  if (query.status) terms.push({ name: "status", operator: "eq", values: [query.status] });
  if (query.eventType) terms.push({ name: "eventType", operator: "eq", values: [query.eventType] });
  if (query.applicationId) terms.push({ name: "applicationId", operator: "eq", values: [query.applicationId] });
  const occurred = dateRangeTerms("occurredAt", query, { from: "From", to: "To" }, timeZone);
  terms.push(...occurred.terms);
  const problems = occurred.problems;
  const url = new URL(c.req.url);
  const request = await listRequest(partnerNotificationsCollection, url, PATH, {
    sort: "-id",
    terms,
    limit: PAGE_SIZE,
  });
  if (!request.ok) problems.push(...request.problems.map((p) => p.message));
  const nothing = { rows: [], attempts: [], counts: new Map<string, number>(), paging: undefined };
  if (problems.length > 0 || !request.ok) return { problems, ...nothing };
  const db = await c.var.db.orm();
  const found = await keysetPage(
    db,
    partnerNotificationsCollection,
    partnerEvents(session(c).partnerId),
    request.value,
  );
  if (!found.ok) return { problems: found.problems.map((p) => p.message), ...nothing };
  // The log shows each event's last attempt and how many there were.
  const { attempts, counts } = await latestAttemptsOf(
    db,
    found.value.rows.map((r) => r.id),
    1,
  );
  return { problems, rows: found.value.rows, attempts, counts, paging: found.value };
}

async function notificationsPage(c: Context<HonoEnv>, notice?: Notice, status: 200 | 400 | 422 | 429 = 200) {
  const cfg = c.var.config;
  const timeZone = cfg.SERVICE_TIMEZONE;
  const query = queryOf(new URL(c.req.url));
  const [log, secrets] = await Promise.all([
    deliveryLog(c, query),
    signingSecretsOf(await c.var.db.orm(), session(c).partnerId),
  ]);
  const at = now();
  const stillSigning = [secrets?.previous, secrets?.older].filter((s) => s && s.expiresAt > at);
  const csrf = c.get("csrfToken");
  const filtered = FIELDS.some((name) => query[name]);
  const searchNotice: Notice | undefined =
    log.problems.length > 0
      ? { kind: "refused", heading: "The log could not be filtered", lines: log.problems }
      : undefined;

  return page(
    c,
    signedIn(c, "Notifications", "notifications"),
    <>
      <h1>Notifications</h1>
      <NoticeBox notice={notice ?? searchNotice} />
      <section aria-labelledby="log">
        <h2 id="log">Delivery log</h2>
        <form method="get" action={PATH} aria-label="Filter the delivery log">
          <div class="filters">
            <div class="field">
              <label for="status">Delivery</label>
              <select id="status" name="status">
                <option value="">Any</option>
                {DELIVERY_STATUSES.map((s) => (
                  <option value={s} selected={query.status === s}>
                    {s}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="eventType">Event</label>
              <select id="eventType" name="eventType">
                <option value="">Any</option>
                {EVENT_TYPES.map((t) => (
                  <option value={t} selected={query.eventType === t}>
                    {t}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="from">From</label>
              <input id="from" name="from" type="date" value={query.from} />
            </div>
            <div class="field">
              <label for="to">To</label>
              <input id="to" name="to" type="date" value={query.to} />
            </div>
            <div class="field">
              <label for="applicationId">Application id</label>
              <input id="applicationId" name="applicationId" value={query.applicationId} maxlength={64} />
            </div>
          </div>
          <FilterActions label="Filter" filtered={filtered} clear={PATH} />
        </form>
        {log.rows.length === 0 ? (
          <p>{filtered ? "No notification matches." : "No notifications yet."}</p>
        ) : (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Occurred</th>
                  <th scope="col">Application</th>
                  <th scope="col">Event</th>
                  <th scope="col">Delivery</th>
                  <th scope="col">Last attempt</th>
                </tr>
              </thead>
              <tbody>
                {log.rows.map((event) => {
                  const last = log.attempts.find((a) => a.eventId === event.id);
                  const tried = log.counts.get(event.id) ?? 0;
                  return (
                    <tr>
                      <td>
                        <Time at={event.occurredAt} timeZone={timeZone} seconds />
                      </td>
                      <td>
                        <a class="code" href={`${applicationPath(event.applicationId)}#event-${event.id}`}>
                          {event.applicationId}
                        </a>
                      </td>
                      <td>
                        <span class="code">{event.type}</span>
                        <br />
                        <StateBadge state={event.state} reason={event.stateReason} />
                      </td>
                      <td>
                        <span class={`state ${event.status}`}>{event.status}</span>
                        <br />
                        <span class="muted">
                          {tried} attempt{tried === 1 ? "" : "s"}
                        </span>
                        {event.failureReason ? <div class="muted">{event.failureReason}</div> : null}
                      </td>
                      <td>
                        {last ? (
                          <>
                            <Time at={last.attemptedAt} timeZone={timeZone} seconds />
                            <br />
                            {last.httpStatus !== null ? `HTTP ${last.httpStatus}` : (last.error ?? "")},{" "}
                            {last.durationMs} ms
                          </>
                        ) : (
                          <span class="muted">none yet</span>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
        <Paging path={PATH} fields={{ ...query }} page={log.paging} previous="Newer" next="Older" />
      </section>
      <div class="grid">
        <section aria-labelledby="replay">
          <h2 id="replay">Replay failed notifications</h2>
          <p>
            Puts every FAILED notification that occurred in the range back in delivery, oldest first, each with a new
            retry schedule: after your endpoint was down, for example. At most {MAX_REPLAY.toLocaleString("en-GB")} per
            replay, and one replay every {duration(REPLAY_INTERVAL_SECONDS)}.
          </p>
          <Offered c={c} capability="replay">
            <form method="post" action={`${PATH}/replay`}>
              <FormTokens csrf={csrf} once={onceToken()} />
              <div class="field">
                <label for="replay-from">
                  Occurred from <span class="hint">On the service's clock ({timeZone})</span>
                </label>
                <input id="replay-from" name="from" type="datetime-local" required />
              </div>
              <div class="field">
                <label for="replay-to">
                  Occurred before <span class="hint">Optional: now if empty</span>
                </label>
                <input id="replay-to" name="to" type="datetime-local" />
              </div>
              <button type="submit">Replay failed notifications</button>
            </form>
          </Offered>
        </section>
        <section aria-labelledby="secret">
          <h2 id="secret">Signing secret</h2>
          <p>
            Every notification is signed with your signing secret (Standard Webhooks). Rotating it creates a new secret,
            shown once. For {duration(cfg.SIGNING_SECRET_OVERLAP_SECONDS)} afterwards the previous secret signs too:
            each notification then carries both signatures, and a receiver that checks either one keeps working, so you
            can switch your receivers to the new secret at your own pace.
          </p>
          {stillSigning.length > 0 ? (
            <ul>
              {stillSigning.map((earlier) => (
                <li>An earlier secret still signs until {shownTime(earlier!.expiresAt, timeZone)}.</li>
              ))}
            </ul>
          ) : (
            <p class="muted">Only the current secret signs now.</p>
          )}
          <Offered c={c} capability="rotate">
            <form method="post" action="/console/notification-secret/rotate">
              <FormTokens csrf={csrf} once={onceToken()} />
              <div class="field">
                <label class="check">
                  <input type="checkbox" name="force" value="yes" />
                  <span>
                    Stop the oldest earlier secret at once. Only when two earlier secrets still sign and one of them
                    leaked: receivers that still use it stop verifying.
                  </span>
                </label>
              </div>
              <button type="submit">Rotate signing secret</button>
            </form>
          </Offered>
        </section>
      </div>
    </>,
    // A filter that could not be read is the request's fault, as on the applications list.
    status === 200 && log.problems.length > 0 ? 400 : status,
  );
}

/** The new secret, on the one page that shows it: never in a URL, never stored by the browser. */
function newSecretPage(c: Context<HonoEnv>, secret: string, previousUntil: number | undefined) {
  const timeZone = c.var.config.SERVICE_TIMEZONE;
  return page(
    c,
    { ...signedIn(c, "New signing secret", "notifications"), copyScript: true },
    <section>
      <h1>New signing secret</h1>
      <p>
        <strong>Shown only now.</strong> Copy it into the configuration of every receiver of your notifications: it
        cannot be shown again.
      </p>
      <div class="field">
        <label for="new-secret">New signing secret</label>
        <input id="new-secret" class="secret" readonly value={secret} autocomplete="off" spellcheck={false} />
      </div>
      <div class="actions">
        <button type="button" data-copy="new-secret" hidden>
          Copy
        </button>
        <span id="new-secret-status" role="status" />
      </div>
      <p>
        {previousUntil === undefined
          ? "Notifications are signed with the new secret from now on."
          : `Until ${shownTime(previousUntil, timeZone)} notifications are signed with both the new and the previous secret; from then on with the new one only.`}
      </p>
      <p>
        <a href={PATH}>Back to notifications</a>
      </p>
    </section>,
  );
}

export const notifications = new Hono<HonoEnv>()
  .get(PATH, (c) => notificationsPage(c))
  .post(`${PATH}/replay`, (c) => {
    const form = c.get("form");
    const timeZone = c.var.config.SERVICE_TIMEZONE;
    const at = now();
    const from = wallClockInstant(form.get("from") ?? "", timeZone);
    const toText = form.get("to") ?? "";
    const to = toText ? wallClockInstant(toText, timeZone) : at + 1;
    // A form that asks for nothing is answered before its one-time token is taken (and stored).
    if (from === null || to === null || to <= from) {
      const heading = "Replay: choose when the notifications occurred, the end after the start.";
      return notificationsPage(c, { kind: "refused", heading }, 400);
    }
    return onceForForm(c, async () => {
      const result = await replay(c.env, c.var.db, { partnerId: session(c).partnerId, status: "FAILED", from, to }, at);
      const range = `FAILED from ${shownTime(from, timeZone)} to ${shownTime(to, timeZone)}`;
      await recordConsoleAction(c, {
        subject: result.outcome === "too_soon" ? range : `${range}: ${result.replayed} replayed`,
        ...(result.outcome === "too_soon" ? { outcome: "REFUSED", code: "RATE_LIMITED" } : { outcome: "SUCCEEDED" }),
      });
      if (result.outcome === "too_soon") {
        c.header("Retry-After", String(result.retryAfter));
        const lines = [
          `One replay per ${duration(REPLAY_INTERVAL_SECONDS)}: please try again in ${duration(result.retryAfter)}.`,
        ];
        return notificationsPage(c, { kind: "refused", heading: "Replay refused", lines }, 429);
      }
      const n = result.replayed;
      const lines = result.more
        ? [`More match: replay again after ${duration(REPLAY_INTERVAL_SECONDS)} for the rest.`]
        : [];
      const heading =
        n === 0
          ? "No failed notification occurred in that range."
          : `${n} failed notification${n === 1 ? " was" : "s were"} put back in delivery.`;
      return notificationsPage(c, { kind: "done", heading, lines });
    });
  })
  .post("/console/notification-secret/rotate", (c) =>
    onceForForm(c, async () => {
      const cfg = c.var.config;
      const rotation = await rotateSigningSecret(await c.var.db.orm(), session(c).partnerId, {
        pepper: cfg.AUTH_PEPPER,
        overlapMs: cfg.SIGNING_SECRET_OVERLAP_SECONDS * 1000,
        force: c.get("form").get("force") === "yes",
      });
      await recordConsoleAction(
        c,
        rotation.outcome === "refused" ? refusedWith(rotation.problems) : { outcome: "SUCCEEDED" },
      );
      if (rotation.outcome === "refused") {
        const lines = rotation.problems.map((p) =>
          p.code === "ROTATION_LIMIT_REACHED"
            ? "Two earlier secrets still sign: rotating now would stop one your receivers may still use. Rotate once the sooner of them has stopped, or tick the box to stop the oldest now. (ROTATION_LIMIT_REACHED)"
            : `${p.message} (${p.code})`,
        );
        return notificationsPage(c, { kind: "refused", heading: "The secret was not rotated", lines }, 422);
      }
      return newSecretPage(c, rotation.secret, rotation.previousUntil);
    }),
  );
