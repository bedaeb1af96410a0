/**
 * The money side of the console's application page (CONTRACT 6b): its shipments, each with its
 * tracking and a form to add more (./shipment-tracking.tsx), and its settlement entries with the payout
 * holding each. Loaded beside the page's view (./application-view.ts) and rendered as two of its
 * sections (./application.tsx). Both are bounded: the latest few, as the page's refunds are.
 */
import type { Context } from "hono";
import { session } from "../auth/require-session";
import { keysetPage } from "../collections/keyset";
import { applicationShipments, shipmentsCollection } from "../collections/settlement";
import type { ShipmentRow } from "../db/schema";
import { type ApplicationEntryRow, latestEntriesOf } from "../db/settlement";
import {
  MAX_CARRIER_LENGTH,
  MAX_TRACKING,
  MAX_TRACKING_NUMBER_LENGTH,
  MAX_TRACKING_URL_LENGTH,
} from "../domain/shipment-tracking";
import type { HonoEnv } from "../env";
import { onceToken } from "./forms";
import { clip, FormTokens, Money, Time } from "./layout";
import { EntryTypeName, PayoutStatusBadge, payoutPath } from "./payouts";

/** The latest shipments shown: an application is usually sent in one or two. */
export const SHIPMENTS_SHOWN = 5;
/** The items named per shipment (an order holds up to 500 lines): the rest are counted. */
const ITEMS_NAMED = 3;
/** The latest entries shown: a line sent is three (its sale, fee and the fee's VAT). */
export const ENTRIES_SHOWN = 30;

/**
 * Under an application's page (`page`): where a shipment's tracking is added, and where its n-th entry's
 * link leads (./shipment-tracking.tsx serves both).
 */
export const TRACKING_PATH = "/shipments/:shipmentId/tracking";
export const trackingPath = (page: string, shipmentId: string) => `${page}/shipments/${shipmentId}/tracking`;
const trackingLink = (page: string, shipmentId: string, n: number) => `${trackingPath(page, shipmentId)}/${n}`;

export interface SettlementView {
  /** In the order they went out, the latest SHIPMENTS_SHOWN; `more` when earlier ones exist. */
  shipments: { rows: ShipmentRow[]; more: boolean };
  /** In the order entered, the latest ENTRIES_SHOWN; `more` when earlier ones exist. */
  entries: { rows: ApplicationEntryRow[]; more: boolean };
}

/**
 * The application's shipments and entries. The shipments are read by the application's id alone, as
 * its refunds are: the page shows them only once the application proved the partner's.
 */
export async function loadSettlementView(c: Context<HonoEnv>, applicationId: string): Promise<SettlementView | null> {
  const db = await c.var.db.orm();
  const [shipments, entries] = await Promise.all([
    keysetPage(db, shipmentsCollection, applicationShipments(applicationId), {
      sort: [{ name: "id", column: shipmentsCollection.sortable.id, descending: true }],
      filter: [],
      limit: SHIPMENTS_SHOWN,
    }),
    latestEntriesOf(db, session(c).partnerId, applicationId, ENTRIES_SHOWN),
  ]);
  if (!shipments.ok) return null;
  return { shipments: { rows: [...shipments.value.rows].reverse(), more: shipments.value.hasMoreAfter }, entries };
}

/** "2 × Mechanical keyboard, 1 × Guide to typing and 3 more items" */
function itemsInWords(items: ShipmentRow["items"]): string {
  const named = items.slice(0, ITEMS_NAMED).map((item) => `${item.quantity} × ${clip(item.name, 40)}`);
  const rest = items.length - named.length;
  return `${named.join(", ")}${rest > 0 ? ` and ${rest} more item${rest === 1 ? "" : "s"}` : ""}`;
}

function TrackingForm({ page, shipment, csrf }: { page: string; shipment: ShipmentRow; csrf: string }) {
  const id = (field: string) => `tracking-${field}-${shipment.id}`;
  return (
    // Not a named landmark: every shipment has one of these forms, and landmarks' names must differ.
    <form method="post" action={trackingPath(page, shipment.id)}>
      <h4>Add tracking</h4>
      <FormTokens csrf={csrf} once={onceToken()} />
      <div class="filters">
        <div class="field">
          <label for={id("number")}>Tracking number</label>
          <input id={id("number")} name="number" required maxlength={MAX_TRACKING_NUMBER_LENGTH} autocomplete="off" />
        </div>
        <div class="field">
          <label for={id("carrier")}>Carrier (optional)</label>
          <input id={id("carrier")} name="carrier" maxlength={MAX_CARRIER_LENGTH} />
        </div>
        <div class="field">
          <label for={id("url")}>
            Tracking page (optional) <span class="hint">An https address</span>
          </label>
          <input id={id("url")} name="url" type="url" maxlength={MAX_TRACKING_URL_LENGTH} placeholder="https://" />
        </div>
      </div>
      <button type="submit">Add tracking</button>
    </form>
  );
}

function Shipment(props: { page: string; shipment: ShipmentRow; csrf: string; timeZone: string }) {
  const { page, shipment, csrf, timeZone } = props;
  const headingId = `shipment-${shipment.id}-heading`;
  return (
    <li id={`shipment-${shipment.id}`}>
      <h3 id={headingId}>
        Sent {shipment.sentDate}
        {shipment.reference ? `: ${clip(shipment.reference, 40)}` : ""}
      </h3>
      <dl class="facts">
        <dt>Reference</dt>
        <dd>{shipment.reference ? clip(shipment.reference, 40) : <span class="muted">none</span>}</dd>
        <dt>Carrier</dt>
        <dd class="code">{shipment.deliveryCarrier ?? "–"}</dd>
        <dt>Items</dt>
        <dd>{itemsInWords(shipment.items)}</dd>
        <dt>Total</dt>
        <dd>
          <Money amount={shipment.totalAmount} currency={shipment.currency} />
        </dd>
      </dl>
      {shipment.tracking.length === 0 ? (
        <p class="muted">No tracking yet.</p>
      ) : (
        <div class="scroll">
          <table aria-labelledby={headingId}>
            <thead>
              <tr>
                <th scope="col">Tracking number</th>
                <th scope="col">Carrier</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {shipment.tracking.map((tracking, n) => (
                <tr>
                  <td>
                    {tracking.url ? (
                      <>
                        <a href={trackingLink(page, shipment.id, n)}>{clip(tracking.number, 40)}</a>{" "}
                        <span class="muted">at {clip(new URL(tracking.url).hostname, 60)}</span>
                      </>
                    ) : (
                      clip(tracking.number, 40)
                    )}
                  </td>
                  <td>{clip(tracking.carrier, 40) || "–"}</td>
                  <td>
                    <Time at={tracking.addedAt} timeZone={timeZone} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {shipment.tracking.length < MAX_TRACKING ? (
        <TrackingForm page={page} shipment={shipment} csrf={csrf} />
      ) : (
        <p class="muted">This shipment holds {MAX_TRACKING} tracking entries, the most one may.</p>
      )}
    </li>
  );
}

/** The application's shipments; `page` is the application page's path, `applicationId` its id. */
export function Shipments(props: {
  applicationId: string;
  page: string;
  view: SettlementView;
  csrf: string;
  timeZone: string;
}) {
  const { applicationId, page, view, csrf, timeZone } = props;
  const { rows, more } = view.shipments;
  return (
    <section aria-labelledby="shipments">
      <h2 id="shipments">Shipments</h2>
      {more ? (
        <p>
          The latest {rows.length} shipments are shown; the API lists every one (GET /financing/v1/applications/
          {applicationId}/shipments).
        </p>
      ) : null}
      {rows.length === 0 ? (
        <p>Nothing was sent yet: each send (or a delivery of goods not sent before) is a shipment.</p>
      ) : (
        <ol class="timeline">
          {rows.map((shipment) => (
            <Shipment page={page} shipment={shipment} csrf={csrf} timeZone={timeZone} />
          ))}
        </ol>
      )}
    </section>
  );
}

export function SettlementEntries(props: { view: SettlementView; timeZone: string }) {
  const { rows, more } = props.view.entries;
  return (
    <section aria-labelledby="settlement">
      <h2 id="settlement">Settlement</h2>
      <p class="muted">
        What this application adds to your payouts: each sale of goods that went out with its fee and the fee's VAT,
        each refund. An open entry waits for the next payout.
      </p>
      {more ? <p>The latest {ENTRIES_SHOWN} entries are shown; each payout lists all of its own.</p> : null}
      {rows.length === 0 ? (
        <p>No entries yet: they come with goods sent, and with refunds.</p>
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
                <th scope="col">Payout</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((entry) => (
                <tr>
                  <td>
                    <Time at={entry.createdAt} timeZone={props.timeZone} />
                  </td>
                  <td>
                    <EntryTypeName type={entry.type} />
                  </td>
                  <td class="num">
                    <Money amount={entry.amount} currency={entry.currency} />
                  </td>
                  <td>
                    {entry.payoutId && entry.payoutReference && entry.payoutStatus ? (
                      <>
                        <a class="code" href={payoutPath(entry.payoutId)}>
                          {entry.payoutReference}
                        </a>{" "}
                        <PayoutStatusBadge status={entry.payoutStatus} />
                      </>
                    ) : (
                      <span class="muted">open</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
