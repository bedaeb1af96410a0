/**
 * GET /console/payouts/:payoutId: one payout as a finance team reconciles it against its bank statement:
 * its reference (the transfer's variable symbol), status, cutoff and totals; what it took, a page at a
 * time (the API's list of its entries); and its report (…/report.csv: the API's CSV, streamed). Another
 * partner's payout is not found.
 */
import { type Context, Hono } from "hono";
import { session } from "../auth/require-session";
import { keysetPage } from "../collections/keyset";
import { payoutEntriesCollection, payoutEntriesOf } from "../collections/settlement";
import { findPayout, payoutEntryPages, payoutOfRow } from "../db/settlement";
import type { Payout } from "../domain/payouts";
import type { HonoEnv } from "../env";
import { payoutReportHeaders, payoutReportStream } from "../settlement/csv";
import { applicationPath } from "./application";
import { errorPage } from "./errors";
import { listRequest } from "./input";
import { clip, Money, NoticeBox, Paging, page, signedIn, Time } from "./layout";
import { EntryTypeName, PAYOUTS_PATH, PayoutStatusBadge, payoutPath } from "./payouts";

const PAYOUT_PATH = `${PAYOUTS_PATH}/:payoutId`;
const PAGE_SIZE = 50;

/** The payout's totals, each as the API names it. */
function Totals({ payout }: { payout: Payout }) {
  const { totals, currency } = payout;
  const shown = [
    ["sales", "Sales", totals.sales],
    ["refunds", "Refunds", totals.refunds],
    ["fees", "Fees", totals.fees],
    ["fee-vat", "VAT on fees", totals.feeVat],
    ["net", "Net (the transfer)", totals.net],
  ] as const;
  return (
    <section aria-labelledby="totals">
      <h2 id="totals">Totals</h2>
      <dl class="money">
        {shown.map(([id, label, amount]) => (
          <div>
            <dt>{label}</dt>
            <dd id={`total-${id}`}>
              <Money amount={amount} currency={currency} />
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** A page of what the payout took, in the order entered, by the cursor in the address. */
async function entryPage(c: Context<HonoEnv>, payoutId: string) {
  const request = await listRequest(payoutEntriesCollection, new URL(c.req.url), payoutPath(payoutId), {
    sort: "id",
    terms: [],
    limit: PAGE_SIZE,
  });
  const found = request.ok
    ? await keysetPage(await c.var.db.orm(), payoutEntriesCollection, payoutEntriesOf(payoutId), request.value)
    : request;
  return found.ok
    ? { problems: [], rows: found.value.rows, paging: found.value }
    : { problems: found.problems.map((p) => p.message), rows: [], paging: undefined };
}

async function payoutPage(c: Context<HonoEnv>, payoutId: string) {
  const row = await findPayout(await c.var.db.orm(), session(c).partnerId, payoutId);
  if (!row) return errorPage(c, "not_found");
  const payout = payoutOfRow(row);
  const timeZone = c.var.config.SERVICE_TIMEZONE;
  const entries = await entryPage(c, payout.id);
  return page(
    c,
    signedIn(c, `Payout ${payout.reference}`, "payouts"),
    <>
      <p>
        <a href={PAYOUTS_PATH}>← Payouts</a>
      </p>
      <h1>Payout {payout.reference}</h1>
      <NoticeBox
        notice={
          entries.problems.length > 0
            ? { kind: "refused", heading: "This page of entries could not be read", lines: entries.problems }
            : undefined
        }
      />
      <section aria-labelledby="summary">
        <h2 id="summary">Summary</h2>
        <dl class="facts">
          <dt>Reference</dt>
          <dd>
            <span class="code">{payout.reference}</span>{" "}
            <span class="muted">(the variable symbol of the bank transfer)</span>
          </dd>
          <dt>Status</dt>
          <dd>
            <PayoutStatusBadge status={payout.status} />
            {payout.status === "FAILED" ? (
              <span class="muted"> The transfer failed: its entries were open again, for the next payout.</span>
            ) : null}
          </dd>
          <dt>Currency</dt>
          <dd class="code">{payout.currency}</dd>
          <dt>Period end</dt>
          <dd>
            <Time at={payout.periodEnd} timeZone={timeZone} />{" "}
            <span class="muted">(it holds the entries created before then)</span>
          </dd>
          <dt>Closed</dt>
          <dd>
            <Time at={payout.createdAt} timeZone={timeZone} />
          </dd>
          <dt>Paid</dt>
          <dd>
            <Time at={payout.paidAt} timeZone={timeZone} />
          </dd>
          <dt>Entries</dt>
          <dd>{payout.entries}</dd>
        </dl>
        <p>
          <a href={`${payoutPath(payout.id)}/report.csv`} download>
            Download the report (CSV)
          </a>{" "}
          <span class="muted">one row per entry, amounts in minor units, as the API's report</span>
        </p>
      </section>
      <Totals payout={payout} />
      <section aria-labelledby="entries">
        <h2 id="entries">Entries</h2>
        {entries.rows.length === 0 ? (
          <p>No entries on this page.</p>
        ) : (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Entered</th>
                  <th scope="col">Type</th>
                  <th scope="col" class="num">
                    Amount
                  </th>
                  <th scope="col">Order</th>
                  <th scope="col">Shipment</th>
                  <th scope="col">Refund</th>
                </tr>
              </thead>
              <tbody>
                {entries.rows.map((entry) => (
                  <tr>
                    <td>
                      <Time at={entry.createdAt} timeZone={timeZone} />
                    </td>
                    <td>
                      <EntryTypeName type={entry.type} />
                    </td>
                    <td class="num">
                      <Money amount={entry.amount} currency={entry.currency} />
                    </td>
                    <td>
                      <a href={applicationPath(entry.applicationId)}>{clip(entry.orderNumber, 40)}</a>
                    </td>
                    <td>{entry.shipmentReference ? clip(entry.shipmentReference, 40) : "–"}</td>
                    <td class="code">{entry.refundId ?? "–"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Paging path={payoutPath(payout.id)} fields={{}} page={entries.paging} previous="Earlier" next="Later" />
      </section>
    </>,
    entries.problems.length > 0 ? 400 : 200,
  );
}

export const payoutDetail = new Hono<HonoEnv>()
  .get(PAYOUT_PATH, (c) => payoutPage(c, c.req.param("payoutId")))
  .get(`${PAYOUT_PATH}/report.csv`, async (c) => {
    const db = await c.var.db.orm();
    const row = await findPayout(db, session(c).partnerId, c.req.param("payoutId"));
    if (!row) return errorPage(c, "not_found");
    const report = payoutReportStream(row, payoutEntryPages(db, row.id), c.var.config.SERVICE_TIMEZONE);
    // The console's own headers (never stored) are set on every answer of it (./index.ts).
    return c.body(report, 200, payoutReportHeaders(row));
  });
