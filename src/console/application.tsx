/**
 * GET /console/applications/:applicationId: one application as support reads it: state, ids, the
 * customer's payment page, dates; its money; its lines, refunds and documents; every event with every
 * delivery attempt; and the actions the domain allows now. Another partner's application is not found.
 * What it shows is loaded and decided first (./application-view.ts); this module renders it, a section
 * at a time.
 */
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { CANCEL_REASONS, DEFAULT_CANCEL_REASON } from "../domain/application-state";
import type { HonoEnv } from "../env";
import { ACTIONS, type ActionName, type ConsoleAction } from "./actions";
import { loadSettlementView, SettlementEntries, Shipments } from "./application-settlement";
import {
  type ApplicationView,
  EVENTS_SHOWN,
  LINES_SHOWN,
  loadApplicationView,
  REFUNDS_SHOWN,
} from "./application-view";
import { errorPage } from "./errors";
import { onceToken } from "./forms";
import {
  clip,
  customerEmail,
  customerName,
  FormTokens,
  Money,
  type Notice,
  NoticeBox,
  page,
  StateBadge,
  signedIn,
  Time,
  typeName,
} from "./layout";

export const APPLICATION_PATH = "/console/applications/:applicationId";
export const applicationPath = (id: string) => `/console/applications/${id}`;

const DONE: Record<string, string> = {
  ...Object.fromEntries(Object.entries(ACTIONS).map(([name, action]) => [name, action.done])),
  resend: "The notification was put back in delivery: its new attempts appear below.",
  tracking: "The tracking was saved: it is shown with its shipment below.",
};

function Summary({ view }: { view: ApplicationView }) {
  const app = view.current.application;
  const { timeZone } = view;
  return (
    <section aria-labelledby="summary">
      <h2 id="summary">Summary</h2>
      <dl class="facts">
        <dt>State</dt>
        <dd>
          <StateBadge state={app.state} reason={app.stateReason} />
        </dd>
        {app.cancelReason ? (
          <>
            <dt>Cancelled because</dt>
            <dd class="code">
              {app.cancelReason}
              {app.customCancelReason ? ` (${clip(app.customCancelReason)})` : ""}
            </dd>
          </>
        ) : null}
        <dt>Type</dt>
        <dd>{typeName(app.type)}</dd>
        <dt>Customer</dt>
        <dd>
          {clip(customerName(app.customer))}, {clip(customerEmail(app.customer))}
        </dd>
        <dt>Application id</dt>
        <dd class="code">{app.id}</dd>
        <dt>Variable symbols</dt>
        <dd class="code">{(app.orderDetails.variableSymbols ?? []).join(", ") || "–"}</dd>
        <dt>Created</dt>
        <dd>
          <Time at={app.createdAt} timeZone={timeZone} />
        </dd>
        <dt>Last changed</dt>
        <dd>
          <Time at={app.updatedAt} timeZone={timeZone} />
        </dd>
        <dt>Deadline</dt>
        <dd>
          {app.expiresAt === null ? (
            "none"
          ) : (
            <>
              <Time at={app.expiresAt} timeZone={timeZone} />{" "}
              <span class="muted">
                {app.state === "PROCESSING" ? "(for the customer to decide)" : "(goods not sent by then lapse)"}
              </span>
            </>
          )}
        </dd>
        {view.gatewayUrl ? (
          <>
            <dt>Customer's payment page</dt>
            <dd class="code">{view.gatewayUrl}</dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}

function MoneyFacts({ view }: { view: ApplicationView }) {
  const { currency } = view.current.application;
  return (
    <section aria-labelledby="money">
      <h2 id="money">Money</h2>
      <dl class="money">
        <div>
          <dt>Approved</dt>
          <dd id="money-approved">
            <Money amount={view.money.approved} currency={currency} />
          </dd>
        </div>
        <div>
          <dt>Financed</dt>
          <dd id="money-financed">
            <Money amount={view.money.financed} currency={currency} />
          </dd>
        </div>
        <div>
          <dt>Refunded</dt>
          <dd id="money-refunded">
            <Money amount={view.money.refunded} currency={currency} />
          </dd>
        </div>
        <div>
          <dt>Refundable</dt>
          <dd id="money-refundable">
            <Money amount={view.money.refundable} currency={currency} />
          </dd>
        </div>
      </dl>
    </section>
  );
}

function ActionForm(props: { name: ActionName; action: ConsoleAction; view: ApplicationView; csrf: string }) {
  const { name, action, view, csrf } = props;
  const { id, currency } = view.current.application;
  return (
    <form method="post" action={`${applicationPath(id)}/${name}`} class="card" aria-labelledby={`action-${name}`}>
      <h3 id={`action-${name}`}>{action.title}</h3>
      <FormTokens csrf={csrf} />
      {name === "refund" ? (
        <>
          <div class="field">
            <label for="refund-amount">
              Amount ({currency})
              <span class="hint">
                At most <Money amount={view.money.refundable} currency={currency} />
              </span>
            </label>
            <input id="refund-amount" name="amount" inputmode="decimal" autocomplete="off" required maxlength={20} />
          </div>
          <div class="field">
            <label for="refund-reason">Reason (optional)</label>
            <input id="refund-reason" name="reason" maxlength={500} />
          </div>
        </>
      ) : null}
      {name === "cancel" ? (
        <>
          <div class="field">
            <label for="cancel-reason">Reason</label>
            <select id="cancel-reason" name="reason">
              {CANCEL_REASONS.map((reason) => (
                <option value={reason} selected={reason === DEFAULT_CANCEL_REASON}>
                  {reason}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="cancel-note">Note (optional)</label>
            <input id="cancel-note" name="note" maxlength={500} />
          </div>
        </>
      ) : null}
      <button type="submit">{action.ask}</button>
    </form>
  );
}

/** Each action's form where the domain allows it now, else the domain's reason in words. */
function Actions({ view, csrf }: { view: ApplicationView; csrf: string }) {
  return (
    <section aria-labelledby="actions">
      <h2 id="actions">Actions</h2>
      <div class="grid">
        {view.actions.map((offered) =>
          offered.offered ? (
            <ActionForm name={offered.name} action={offered.action} view={view} csrf={csrf} />
          ) : (
            <div class="card">
              <h3>{offered.action.title}</h3>
              <p class="muted">Not possible now: {offered.why}</p>
            </div>
          ),
        )}
      </div>
    </section>
  );
}

function Lines({ view }: { view: ApplicationView }) {
  const { current } = view;
  const app = current.application;
  const { currency } = app;
  return (
    <section aria-labelledby="lines">
      <h2 id="lines">Order lines</h2>
      {current.lines.length > LINES_SHOWN ? (
        <p>
          The first {LINES_SHOWN} of {current.lines.length} lines are shown; the API answers every one (GET
          /financing/v1/applications/{app.id}).
        </p>
      ) : null}
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col" class="num">
                Qty
              </th>
              <th scope="col" class="num">
                Total
              </th>
              <th scope="col">State</th>
              <th scope="col">Sent</th>
              <th scope="col">Delivered</th>
            </tr>
          </thead>
          <tbody>
            {current.lines.slice(0, LINES_SHOWN).map((line) => (
              <tr>
                <td>
                  {clip(line.name)}
                  <br />
                  <span class="muted code">{clip(line.code)}</span>
                </td>
                <td class="num">{line.quantity}</td>
                <td class="num">
                  <Money amount={line.totalPriceAmount} currency={currency} />
                </td>
                <td>
                  <span class={`state ${line.state}`}>{line.state}</span>
                </td>
                <td>{line.sentDate ?? "–"}</td>
                <td>{line.deliveryDate ?? "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Refunds({ view }: { view: ApplicationView }) {
  const app = view.current.application;
  const { timeZone } = view;
  return (
    <section aria-labelledby="refunds">
      <h2 id="refunds">Refunds</h2>
      {view.refunds.more ? (
        <p>
          The latest {REFUNDS_SHOWN} refunds are shown; the API lists every one (GET /financing/v1/applications/
          {app.id}/refunds).
        </p>
      ) : null}
      {view.refunds.rows.length === 0 ? (
        <p>No refunds.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col" class="num">
                  Amount
                </th>
                <th scope="col">Origin</th>
                <th scope="col">Reason</th>
                <th scope="col">Variable symbol</th>
              </tr>
            </thead>
            <tbody>
              {view.refunds.rows.map((refund) => (
                <tr>
                  <td>
                    <Time at={refund.createdAt} timeZone={timeZone} />
                  </td>
                  <td class="num">
                    <Money amount={refund.amount} currency={refund.currency} />
                  </td>
                  <td>{refund.origin}</td>
                  <td>{clip(refund.reason)}</td>
                  <td class="code">{refund.variableSymbol ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Documents({ view }: { view: ApplicationView }) {
  const { current } = view;
  const app = current.application;
  return (
    <section aria-labelledby="documents">
      <h2 id="documents">Documents</h2>
      {current.documents.length === 0 ? (
        <p>No documents.</p>
      ) : (
        <ul>
          {current.documents.map((document) => (
            <li>
              <a href={`${applicationPath(app.id)}/documents/${document.id}`} download>
                {clip(document.filename)}
              </a>{" "}
              <span class="muted">
                {document.type}
                {document.description ? `: ${clip(document.description)}` : ""}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Timeline({ view, csrf }: { view: ApplicationView; csrf: string }) {
  const { rows: events, attempts, counts, more } = view.events;
  const { timeZone } = view;
  const applicationId = view.current.application.id;
  return (
    <section aria-labelledby="events">
      <h2 id="events">Events and their notifications</h2>
      {events.length === 0 ? <p>No events yet.</p> : null}
      {more ? (
        <p>
          The latest {EVENTS_SHOWN} events are shown:{" "}
          <a href={`/console/notifications?applicationId=${encodeURIComponent(applicationId)}`}>
            earlier ones are on the notifications page
          </a>
        </p>
      ) : null}
      <ol class="timeline">
        {events.map((event) => {
          const mine = attempts.filter((a) => a.eventId === event.id);
          const total = counts.get(event.id) ?? 0;
          return (
            <li id={`event-${event.id}`}>
              <div class="event">
                <strong>
                  <Time at={event.occurredAt} timeZone={timeZone} seconds />
                </strong>
                <span class="code">{event.type}</span>
                <StateBadge state={event.state} reason={event.stateReason} />
                <span>
                  Delivery: <span class={`state ${event.status}`}>{event.status}</span>
                </span>
                {event.status === "PENDING" && event.nextAttemptAt !== null ? (
                  <span class="muted">
                    next attempt <Time at={event.nextAttemptAt} timeZone={timeZone} seconds />
                  </span>
                ) : null}
              </div>
              {event.failureReason ? <p class="muted">Failed: {event.failureReason}</p> : null}
              {mine.length === 0 ? (
                <p class="muted">No delivery attempt yet.</p>
              ) : (
                <div class="scroll">
                  <table>
                    <caption class="muted">
                      Delivery attempts of event {event.sequence}
                      {total > mine.length ? `: the latest ${mine.length} of ${total}` : ""}
                    </caption>
                    <thead>
                      <tr>
                        <th scope="col">Attempted</th>
                        <th scope="col">HTTP status</th>
                        <th scope="col" class="num">
                          Duration
                        </th>
                        <th scope="col">Error</th>
                      </tr>
                    </thead>
                    <tbody>
                      {mine.map((attempt) => (
                        <tr>
                          <td>
                            <Time at={attempt.attemptedAt} timeZone={timeZone} seconds />
                          </td>
                          <td>{attempt.httpStatus ?? "–"}</td>
                          <td class="num">{attempt.durationMs} ms</td>
                          <td>{clip(attempt.error, 150)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              {view.mayResend ? (
                <form method="post" action={`${applicationPath(event.applicationId)}/notifications/${event.id}/resend`}>
                  <FormTokens csrf={csrf} once={onceToken()} />
                  <button type="submit" aria-label={`Resend event ${event.sequence}`}>
                    Resend
                  </button>
                </form>
              ) : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/**
 * The page of the signed-in partner's application, with a notice (what was just done, or refused), or
 * the not-found page.
 */
export async function applicationPage(
  c: Context<HonoEnv>,
  applicationId: string,
  notice?: Notice,
  status: ContentfulStatusCode = 200,
) {
  const [view, settlement] = await Promise.all([
    loadApplicationView(c, applicationId),
    loadSettlementView(c, applicationId),
  ]);
  if (!view || !settlement) return errorPage(c, "not_found");
  const { number } = view.current.application.orderDetails;
  const csrf = c.get("csrfToken");
  return page(
    c,
    signedIn(c, `Order ${number}`, "applications"),
    <>
      <p>
        <a href="/console/applications">← Applications</a>
      </p>
      <h1>Order {number}</h1>
      <NoticeBox notice={notice} />
      <Summary view={view} />
      <MoneyFacts view={view} />
      <Actions view={view} csrf={csrf} />
      <Lines view={view} />
      <Shipments
        applicationId={applicationId}
        page={applicationPath(applicationId)}
        view={settlement}
        csrf={csrf}
        timeZone={view.timeZone}
      />
      <Refunds view={view} />
      <SettlementEntries view={settlement} timeZone={view.timeZone} />
      <Documents view={view} />
      <Timeline view={view} csrf={csrf} />
    </>,
    status,
  );
}

export const applicationDetail = new Hono<HonoEnv>().get(APPLICATION_PATH, (c) => {
  const done = c.req.query("done");
  const notice: Notice | undefined =
    done && Object.hasOwn(DONE, done) ? { kind: "done", heading: DONE[done]! } : undefined;
  return applicationPage(c, c.req.param("applicationId"), notice);
});
