/**
 * GET /console/applications: the partner's applications, found by one search box (order number,
 * customer e-mail, variable symbol or application id), filtered by state and creation date, sorted, a
 * page at a time. The list is the API's own (src/collections): the form's fields become the API's
 * `sort` and `filter` parameters, read and checked by the same parser, paged by the same keyset query.
 */
import { Hono } from "hono";
import { session } from "../auth/require-session";
import { applicationSearchCollection } from "../collections/application-search";
import { applicationScope } from "../collections/applications";
import { keysetPage } from "../collections/keyset";
import { aggregateOf } from "../db/aggregate-row";
import { APPLICATION_STATES } from "../domain/application-state";
import { ledgerOf } from "../domain/ledger";
import type { Problem } from "../domain/result";
import type { HonoEnv } from "../env";
import { dateRangeTerms, listRequest } from "./input";
import {
  customerEmail,
  customerName,
  FilterActions,
  Money,
  NoticeBox,
  Paging,
  page,
  StateBadge,
  signedIn,
  Time,
  typeName,
} from "./layout";

const PATH = "/console/applications";
const PAGE_SIZE = 20;

const SORTS = {
  "-createdAt": "Newest first",
  createdAt: "Oldest first",
  // The API's totalPrice: the financed total (the lines not cancelled), the column the list shows.
  "-totalPrice": "Highest financed total first",
  totalPrice: "Lowest financed total first",
  orderNumber: "Order number",
} as const;

/** The form as it came (a GET: the filters are in the address, shareable, no secret among them). */
interface Query {
  q: string;
  state: string;
  from: string;
  to: string;
  sort: keyof typeof SORTS;
}

function queryOf(url: URL): Query {
  const field = (name: string) => url.searchParams.get(name)?.trim() ?? "";
  const sort = field("sort");
  return {
    q: field("q"),
    state: field("state"),
    from: field("from"),
    to: field("to"),
    sort: Object.hasOwn(SORTS, sort) ? (sort as keyof typeof SORTS) : "-createdAt",
  };
}

/** The API's filter terms of the form's fields, or what is wrong with a date. */
function filterTerms(query: Query, timeZone: string) {
  const terms: { name: string; operator: "eq" | "gteq" | "lt"; values: string[] }[] = [];
  if (query.q) terms.push({ name: "search", operator: "eq", values: [query.q] });
  if (query.state) terms.push({ name: "state", operator: "eq", values: [query.state] });
  const created = dateRangeTerms("createdAt", query, { from: "Created from", to: "Created to" }, timeZone);
  return { terms: [...terms, ...created.terms], problems: created.problems };
}

export const applicationsList = new Hono<HonoEnv>().get(PATH, async (c) => {
  const url = new URL(c.req.url);
  const query = queryOf(url);
  const timeZone = c.var.config.SERVICE_TIMEZONE;
  const { terms, problems } = filterTerms(query, timeZone);
  const partnerId = session(c).partnerId;
  const collection = applicationSearchCollection(partnerId);
  const request = await listRequest(collection, url, PATH, { sort: query.sort, terms, limit: PAGE_SIZE });
  const found =
    request.ok && problems.length === 0
      ? await keysetPage(
          await c.var.db.orm(),
          collection,
          applicationScope(partnerId, collection, request.value),
          request.value,
        )
      : undefined;
  const refused: Problem[] = [...(request.ok ? [] : request.problems), ...(found && !found.ok ? found.problems : [])];
  const rows = found?.ok ? found.value.rows.map(aggregateOf) : [];
  const paging = found?.ok ? found.value : undefined;
  const searched = terms.length > 0;

  return page(
    c,
    signedIn(c, "Applications", "applications"),
    <>
      <h1>Applications</h1>
      <section>
        <search>
          <form method="get" action={PATH} aria-label="Search applications">
            <div class="field">
              <label for="q">
                Search
                <span class="hint">Order number, customer e-mail, variable symbol or application id</span>
              </label>
              <input id="q" name="q" type="search" value={query.q} maxlength={254} />
            </div>
            <div class="filters">
              <div class="field">
                <label for="state">State</label>
                <select id="state" name="state">
                  <option value="">Any state</option>
                  {APPLICATION_STATES.map((state) => (
                    <option value={state} selected={query.state === state}>
                      {state}
                    </option>
                  ))}
                </select>
              </div>
              <div class="field">
                <label for="from">Created from</label>
                <input id="from" name="from" type="date" value={query.from} />
              </div>
              <div class="field">
                <label for="to">Created to</label>
                <input id="to" name="to" type="date" value={query.to} />
              </div>
              <div class="field">
                <label for="sort">Sort</label>
                <select id="sort" name="sort">
                  {Object.entries(SORTS).map(([value, text]) => (
                    <option value={value} selected={query.sort === value}>
                      {text}
                    </option>
                  ))}
                </select>
              </div>
            </div>
            <FilterActions label="Search" filtered={searched} clear={PATH} />
          </form>
        </search>
      </section>
      <NoticeBox
        notice={
          problems.length + refused.length > 0
            ? {
                kind: "refused",
                heading: "The search could not be run",
                lines: [...problems, ...refused.map((p) => p.message)],
              }
            : undefined
        }
      />
      <section aria-labelledby="results">
        <h2 id="results">{searched ? "Found" : "Latest"}</h2>
        {rows.length === 0 ? (
          <p>{searched ? "No application matches." : "No applications yet."}</p>
        ) : (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Created</th>
                  <th scope="col">Order</th>
                  <th scope="col">Customer</th>
                  <th scope="col">Type</th>
                  <th scope="col" class="num">
                    Financed
                  </th>
                  <th scope="col">State</th>
                  <th scope="col">Deadline</th>
                </tr>
              </thead>
              <tbody>
                {rows.map(({ application: app, lines }) => (
                  <tr>
                    <td>
                      <Time at={app.createdAt} timeZone={timeZone} />
                    </td>
                    <td>
                      <a href={`${PATH}/${app.id}`}>{app.orderDetails.number}</a>
                    </td>
                    <td>
                      {customerName(app.customer)}
                      <br />
                      <span class="muted">{customerEmail(app.customer)}</span>
                    </td>
                    <td>{typeName(app.type)}</td>
                    <td class="num">
                      <Money amount={ledgerOf(app, lines).financed} currency={app.currency} />
                    </td>
                    <td>
                      <StateBadge state={app.state} reason={app.stateReason} />
                    </td>
                    <td>
                      <Time at={app.expiresAt} timeZone={timeZone} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Paging path={PATH} fields={{ ...query }} page={paging} previous="Previous page" next="Next page" />
      </section>
    </>,
    problems.length + refused.length > 0 ? 400 : 200,
  );
});
