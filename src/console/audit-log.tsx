/**
 * /console/audit (ADMIN): the partner's audit log, newest first (src/domain/audit.ts): every console
 * action and API write, who did it, what with which figures, from where, and its outcome; filtered by
 * operation, who, application, outcome and date, read a page at a time. The list is the API's own
 * (GET /financing/v1/audit-events: src/collections/audit-events.ts), through the same parser and keyset query.
 */
import { type Context, Hono } from "hono";
import { session } from "../auth/require-session";
import { auditEventsCollection, partnerAuditEvents } from "../collections/audit-events";
import { keysetPage } from "../collections/keyset";
import { AUDIT_OUTCOMES } from "../domain/audit";
import { formatMoney } from "../domain/money";
import type { HonoEnv } from "../env";
import { applicationPath } from "./application";
import { dateRangeTerms, listRequest } from "./input";
import { clip, FilterActions, NoticeBox, Paging, page, signedIn, Time } from "./layout";

const PATH = "/console/audit";
const PAGE_SIZE = 50;
const FIELDS = ["operation", "actor", "applicationId", "outcome", "from", "to"] as const;
type Query = Record<(typeof FIELDS)[number], string>;

const queryOf = (url: URL): Query =>
  Object.fromEntries(FIELDS.map((name) => [name, url.searchParams.get(name)?.trim() ?? ""])) as Query;

async function auditLog(c: Context<HonoEnv>, query: Query) {
  const terms: { name: string; operator: "eq" | "gteq" | "lt"; values: string[] }[] = [];
  for (const [field, name] of [
    ["operation", "operation"],
    ["actor", "actorId"],
    ["applicationId", "applicationId"],
    ["outcome", "outcome"],
  ] as const) {
    if (query[field]) terms.push({ name, operator: "eq", values: [query[field]] });
  }
  const dates = dateRangeTerms("occurredAt", query, { from: "From", to: "To" }, c.var.config.SERVICE_TIMEZONE);
  const problems = [...dates.problems];
  const request = await listRequest(auditEventsCollection, new URL(c.req.url), PATH, {
    sort: "-id",
    terms: [...terms, ...dates.terms],
    limit: PAGE_SIZE,
  });
  if (!request.ok) problems.push(...request.problems.map((p) => p.message));
  if (problems.length > 0 || !request.ok) return { problems, rows: [], paging: undefined };
  const found = await keysetPage(
    await c.var.db.orm(),
    auditEventsCollection,
    partnerAuditEvents(session(c).partnerId),
    request.value,
  );
  if (!found.ok) return { problems: found.problems.map((p) => p.message), rows: [], paging: undefined };
  return { problems, rows: found.value.rows, paging: found.value };
}

export const auditLogPage = new Hono<HonoEnv>().get(PATH, async (c) => {
  const query = queryOf(new URL(c.req.url));
  const log = await auditLog(c, query);
  const timeZone = c.var.config.SERVICE_TIMEZONE;
  const filtered = FIELDS.some((name) => query[name]);
  const field = (name: keyof Query, label: string, hint?: string) => (
    <div class="field">
      <label for={`audit-${name}`}>{label}</label>
      <input
        id={`audit-${name}`}
        name={name}
        value={query[name]}
        maxlength={64}
        aria-describedby={hint ? `audit-${name}-hint` : undefined}
      />
      {hint ? (
        <p class="hint" id={`audit-${name}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  );
  return page(
    c,
    signedIn(c, "Audit log", "audit"),
    <>
      <h1>Audit log</h1>
      <NoticeBox
        notice={
          log.problems.length > 0
            ? { kind: "refused", heading: "The log could not be filtered", lines: log.problems }
            : undefined
        }
      />
      <section aria-labelledby="log">
        <h2 id="log">Every console action and API write</h2>
        <form method="get" action={PATH} aria-label="Filter the audit log">
          <div class="filters">
            {field("operation", "Operation", "Such as createRefund, signIn, changeRole")}
            {field("actor", "Who", "A person's id, or an API token's id")}
            {field("applicationId", "Application id")}
            <div class="field">
              <label for="audit-outcome">Outcome</label>
              <select id="audit-outcome" name="outcome">
                <option value="">Any</option>
                {AUDIT_OUTCOMES.map((o) => (
                  <option value={o} selected={query.outcome === o}>
                    {o}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="audit-from">From</label>
              <input id="audit-from" name="from" type="date" value={query.from} />
            </div>
            <div class="field">
              <label for="audit-to">To</label>
              <input id="audit-to" name="to" type="date" value={query.to} />
            </div>
          </div>
          <FilterActions label="Filter" filtered={filtered} clear={PATH} />
        </form>
        {log.rows.length === 0 ? (
          <p>{filtered ? "No entry matches." : "Nothing recorded yet."}</p>
        ) : (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">From</th>
                  <th scope="col">Outcome</th>
                </tr>
              </thead>
              <tbody>
                {log.rows.map((row) => (
                  <tr>
                    <td>
                      <Time at={row.occurredAt} timeZone={timeZone} seconds />
                    </td>
                    <td>
                      {row.actorType === "PERSON" ? row.actorName : row.actorType}
                      {row.actorId ? <div class="muted code">{row.actorId}</div> : null}
                    </td>
                    <td>
                      <span class="code">{row.operation}</span> <span class="muted">({row.source})</span>
                      {row.applicationId ? (
                        <div>
                          <a class="code" href={applicationPath(row.applicationId)}>
                            {row.applicationId}
                          </a>
                        </div>
                      ) : null}
                      {row.amount !== null && row.currency ? <div>{formatMoney(row.amount, row.currency)}</div> : null}
                      {row.reason ? <div>{clip(row.reason)}</div> : null}
                      {row.subject ? <div class="muted">{clip(row.subject)}</div> : null}
                    </td>
                    <td class="code">{row.address ?? "–"}</td>
                    <td>
                      <span class={`state ${row.outcome}`}>{row.outcome}</span>
                      {row.code ? <div class="code">{row.code}</div> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Paging path={PATH} fields={{ ...query }} page={log.paging} previous="Newer" next="Older" />
      </section>
    </>,
    log.problems.length > 0 ? 400 : 200,
  );
});
