/**
 * GET /console/payouts: what the partner is paid. The open balance (the entries in no payout yet) per
 * currency and when the next payout closes; then the payouts, newest first, filtered by status and
 * currency. Both are the API's own: its balance read, and its list (src/collections/settlement.ts) read
 * by the same parser and keyset query.
 */
import { type Context, Hono } from "hono";
import { session } from "../auth/require-session";
import { now } from "../clock";
import { keysetPage } from "../collections/keyset";
import { partnerPayouts, payoutsCollection } from "../collections/settlement";
import { openBalance, payoutOfRow } from "../db/settlement";
import { PAYOUT_STATUSES, type Payout, type PayoutStatus } from "../domain/payouts";
import type { EntryType } from "../domain/settlement-entries";
import type { HonoEnv } from "../env";
import { nextCutoff } from "../settlement/payout-cutoff";
import { listRequest } from "./input";
import { FilterActions, Money, NoticeBox, Paging, page, signedIn, Time } from "./layout";

export const PAYOUTS_PATH = "/console/payouts";
export const payoutPath = (id: string) => `${PAYOUTS_PATH}/${id}`;
const PAGE_SIZE = 25;

export const PayoutStatusBadge = ({ status }: { status: PayoutStatus }) => (
  <span class={`state ${status}`}>{status}</span>
);

const ENTRY_NAMES: Record<EntryType, string> = { SALE: "Sale", FEE: "Fee", FEE_VAT: "VAT on fee", REFUND: "Refund" };

/** A settlement entry's type in words, with its code (what the API and the report say) beside it. */
export const EntryTypeName = ({ type }: { type: EntryType }) => (
  <>
    {ENTRY_NAMES[type]} <span class="muted code">{type}</span>
  </>
);

/** The form as it came (a GET: the filters are in the address). */
interface Query {
  status: string;
  currency: string;
}

function queryOf(url: URL): Query {
  const field = (name: string) => url.searchParams.get(name)?.trim() ?? "";
  return { status: field("status"), currency: field("currency").toUpperCase() };
}

/** The partner's payouts as the API lists them, newest first, filtered by the form; or why it could not. */
async function payoutList(c: Context<HonoEnv>, query: Query) {
  const terms = (["status", "currency"] as const)
    .filter((name) => query[name])
    .map((name) => ({ name, operator: "eq" as const, values: [query[name]] }));
  const request = await listRequest(payoutsCollection, new URL(c.req.url), PAYOUTS_PATH, {
    sort: "-createdAt",
    terms,
    limit: PAGE_SIZE,
  });
  const found = request.ok
    ? await keysetPage(await c.var.db.orm(), payoutsCollection, partnerPayouts(session(c).partnerId), request.value)
    : request;
  if (!found.ok) return { problems: found.problems.map((p) => p.message), rows: [] as Payout[], paging: undefined };
  return { problems: [], rows: found.value.rows.map(payoutOfRow), paging: found.value };
}

function Balance(props: { balances: Awaited<ReturnType<typeof openBalance>>; closesAt: number; timeZone: string }) {
  const { balances, closesAt, timeZone } = props;
  return (
    <section aria-labelledby="balance">
      <h2 id="balance">Open balance</h2>
      <p>
        What your entries not yet in a payout add up to. The next payout closes at{" "}
        <Time at={closesAt} timeZone={timeZone} />: one per currency, of every open entry created before then, when they
        add up to more than zero (otherwise they wait for the next one).
      </p>
      {balances.length === 0 ? (
        <p>Nothing is open: every entry is in a payout.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Currency</th>
                <th scope="col" class="num">
                  Sales
                </th>
                <th scope="col" class="num">
                  Refunds
                </th>
                <th scope="col" class="num">
                  Fees
                </th>
                <th scope="col" class="num">
                  VAT on fees
                </th>
                <th scope="col" class="num">
                  Net
                </th>
              </tr>
            </thead>
            <tbody>
              {balances.map((b) => (
                <tr>
                  <td class="code">{b.currency}</td>
                  {[b.sales, b.refunds, b.fees, b.feeVat, b.net].map((amount) => (
                    <td class="num">
                      <Money amount={amount} currency={b.currency} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export const payoutsList = new Hono<HonoEnv>().get(PAYOUTS_PATH, async (c) => {
  const cfg = c.var.config;
  const timeZone = cfg.SERVICE_TIMEZONE;
  const query = queryOf(new URL(c.req.url));
  const [list, balances] = await Promise.all([
    payoutList(c, query),
    openBalance(await c.var.db.orm(), session(c).partnerId),
  ]);
  const filtered = Boolean(query.status || query.currency);
  return page(
    c,
    signedIn(c, "Payouts", "payouts"),
    <>
      <h1>Payouts</h1>
      <NoticeBox
        notice={
          list.problems.length > 0
            ? { kind: "refused", heading: "The payouts could not be filtered", lines: list.problems }
            : undefined
        }
      />
      <Balance balances={balances} closesAt={nextCutoff(now(), cfg.PAYOUT_CUTOFF_HOUR, timeZone)} timeZone={timeZone} />
      <section aria-labelledby="payouts">
        <h2 id="payouts">Payouts</h2>
        <p>
          Each payout is one bank transfer: its reference is the transfer's variable symbol. Open one for its entries
          and its report.
        </p>
        <form method="get" action={PAYOUTS_PATH} aria-label="Filter the payouts">
          <div class="filters">
            <div class="field">
              <label for="status">Status</label>
              <select id="status" name="status">
                <option value="">Any</option>
                {PAYOUT_STATUSES.map((s) => (
                  <option value={s} selected={query.status === s}>
                    {s}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="currency">
                Currency <span class="hint">Such as CZK</span>
              </label>
              <input id="currency" name="currency" value={query.currency} maxlength={3} autocomplete="off" />
            </div>
          </div>
          <FilterActions label="Filter" filtered={filtered} clear={PAYOUTS_PATH} />
        </form>
        {list.rows.length === 0 ? (
          <p>{filtered ? "No payout matches." : "No payouts yet."}</p>
        ) : (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Reference</th>
                  <th scope="col">Status</th>
                  <th scope="col">Period end</th>
                  <th scope="col" class="num">
                    Net
                  </th>
                  <th scope="col" class="num">
                    Sales
                  </th>
                  <th scope="col" class="num">
                    Refunds
                  </th>
                  <th scope="col" class="num">
                    Fees
                  </th>
                  <th scope="col" class="num">
                    VAT on fees
                  </th>
                  <th scope="col" class="num">
                    Entries
                  </th>
                  <th scope="col">Paid</th>
                </tr>
              </thead>
              <tbody>
                {list.rows.map((payout) => (
                  <tr>
                    <td>
                      <a class="code" href={payoutPath(payout.id)}>
                        {payout.reference}
                      </a>
                    </td>
                    <td>
                      <PayoutStatusBadge status={payout.status} />
                    </td>
                    <td>
                      <Time at={payout.periodEnd} timeZone={timeZone} />
                    </td>
                    <td class="num">
                      <strong>
                        <Money amount={payout.totals.net} currency={payout.currency} />
                      </strong>
                    </td>
                    {[payout.totals.sales, payout.totals.refunds, payout.totals.fees, payout.totals.feeVat].map(
                      (amount) => (
                        <td class="num">
                          <Money amount={amount} currency={payout.currency} />
                        </td>
                      ),
                    )}
                    <td class="num">{payout.entries}</td>
                    <td>
                      <Time at={payout.paidAt} timeZone={timeZone} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Paging path={PAYOUTS_PATH} fields={{ ...query }} page={list.paging} previous="Newer" next="Older" />
      </section>
    </>,
    // A filter that could not be read is the request's fault, as on the other lists.
    list.problems.length > 0 ? 400 : 200,
  );
});
