/**
 * The customer's pages: plain server-rendered HTML, no script and no external asset, so they work
 * under a CSP of `default-src 'none'` and on any phone. Hono's JSX escapes every value.
 */
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import type { Outcome } from "../domain/customer-outcome";

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f4f5f7}
main{max-width:34rem;margin:0 auto;padding:1rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;margin-bottom:1rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.merchant{margin:0;color:#57606a;font-size:.9rem;text-transform:uppercase;letter-spacing:.04em}
h1{font-size:1.4rem;margin:.25rem 0}
h2{font-size:1.05rem;margin:0 0 .75rem}
.muted{color:#57606a;margin:0}
table{width:100%;border-collapse:collapse}
th,td{padding:.4rem 0;text-align:left;vertical-align:top}
td.num,th.num{text-align:right;white-space:nowrap;padding-left:.75rem}
tbody tr{border-top:1px solid #e4e7eb}
tfoot th,tfoot td{border-top:2px solid #1b1f24;font-weight:700}
ol.plan{list-style:none;margin:0;padding:0}
ol.plan li{display:flex;justify-content:space-between;gap:1rem;padding:.5rem 0;border-top:1px solid #e4e7eb}
ol.plan li:first-child{border-top:0}
.agree{display:flex;gap:.6rem;align-items:flex-start;margin-bottom:1rem}
.agree input{width:1.3rem;height:1.3rem;margin-top:.1rem;flex:none}
.actions{display:flex;flex-direction:column;gap:.6rem}
button,.button{display:block;width:100%;padding:.85rem 1rem;border-radius:8px;border:1px solid #1b1f24;
  background:#fff;color:#1b1f24;font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
button.primary,.button.primary{background:#0b5cad;border-color:#0b5cad;color:#fff}
.notice{border-left:4px solid #b35900}
`;

function Layout({ title, children }: { title: string; children: Child }) {
  return (
    <>
      {raw("<!doctype html>")}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="robots" content="noindex" />
          <title>{title}</title>
          <style>{raw(STYLE)}</style>
        </head>
        <body>
          <main>{children}</main>
        </body>
      </html>
    </>
  );
}

export interface ApplicationPageView {
  merchantName: string;
  type: string;
  orderNumber: string;
  /** Display strings: amounts are already formatted with their currency. */
  items: { name: string; quantity: number; total: string }[];
  total: string;
  instalments: { number: number; amount: string; dueDate: string }[];
  /** True when the partner did not send agreementTermsAndConditions: the customer must tick it here. */
  agreementNeeded: boolean;
  /** Names this offer; the form sends it back, so that an answer decides only the offer it answers. */
  offerToken: string;
  /** Shown again because the offer the customer answered has changed since. */
  changed: boolean;
}

const HEADINGS: Record<string, string> = {
  PAY_IN_THREE: "Pay in three instalments",
  DEFERRED_PAYMENT: "Pay later",
};

function Terms({ view }: { view: ApplicationPageView }) {
  const [only] = view.instalments;
  if (view.type === "DEFERRED_PAYMENT" && only) {
    return (
      <p>
        One payment of <strong>{only.amount}</strong>, due <time datetime={only.dueDate}>{only.dueDate}</time>.
      </p>
    );
  }
  return (
    <ol class="plan">
      {view.instalments.map((i) => (
        <li>
          <span>
            Instalment {i.number} of {view.instalments.length}, due <time datetime={i.dueDate}>{i.dueDate}</time>
          </span>
          <strong>{i.amount}</strong>
        </li>
      ))}
    </ol>
  );
}

/** The offer: merchant, items, total, terms, and the one form that confirms or cancels. */
export function ApplicationPage({ view }: { view: ApplicationPageView }) {
  const heading = HEADINGS[view.type] ?? "Financing";
  return (
    <Layout title={`${heading} · ${view.merchantName}`}>
      {view.changed ? (
        <div class="card notice" role="alert" id="offer-changed">
          <h2>The order changed</h2>
          <p>
            The order or its payment dates changed after you opened this page, so nothing was decided yet. Please check
            the order and your payments below, and confirm again if you agree.
          </p>
        </div>
      ) : null}
      <div class="card">
        <p class="merchant">{view.merchantName}</p>
        <h1>{heading}</h1>
        <p class="muted">Order {view.orderNumber}</p>
      </div>
      <section class="card">
        <h2>Your order</h2>
        <table>
          <thead>
            <tr>
              <th>Item</th>
              <th class="num">Qty</th>
              <th class="num">Total</th>
            </tr>
          </thead>
          <tbody>
            {view.items.map((item) => (
              <tr>
                <td>{item.name}</td>
                <td class="num">{item.quantity}</td>
                <td class="num">{item.total}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th colspan={2}>Order total</th>
              <td class="num" id="order-total">
                {view.total}
              </td>
            </tr>
          </tfoot>
        </table>
      </section>
      <section class="card">
        <h2>Your payments</h2>
        <Terms view={view} />
      </section>
      {/* No action attribute: the form posts back to this URL, which carries the token. */}
      <form method="post" class="card">
        <input type="hidden" name="offer" value={view.offerToken} />
        {view.agreementNeeded ? (
          <label class="agree">
            {/* required spares the customer a rejection for a forgotten tick; the server checks anyway. */}
            <input type="checkbox" name="agreement" value="yes" required />
            <span>I have read and agree to the terms and conditions of this financing.</span>
          </label>
        ) : null}
        <div class="actions">
          <button type="submit" name="action" value="confirm" class="primary">
            Confirm financing
          </button>
          {/* Cancelling must not need the agreement: skip the browser's required-field check. */}
          <button type="submit" name="action" value="cancel" formnovalidate>
            Cancel and return to the shop
          </button>
        </div>
      </form>
    </Layout>
  );
}

const OUTCOMES: Record<Outcome, { heading: string; message: (order: string, merchant: string) => string }> = {
  approved: {
    heading: "Financing approved",
    message: (order, merchant) => `Your financing of order ${order} is approved. ${merchant} will take it from here.`,
  },
  rejected: {
    heading: "Financing not approved",
    message: (order, merchant) =>
      `We could not approve financing of order ${order}. Please choose another way to pay at ${merchant}.`,
  },
  cancelled: {
    heading: "Application cancelled",
    message: (order) => `The financing application for order ${order} was cancelled. You will not be charged.`,
  },
  expired: {
    heading: "This offer has expired",
    message: (order, merchant) =>
      `The time to confirm financing of order ${order} has passed, and you will not be charged. Please return to ${merchant} to pay for your order again.`,
  },
  review: {
    heading: "We are reviewing your application",
    message: (order, merchant) =>
      `Thank you: your financing of order ${order} needs a short review. ${merchant} will tell you the outcome; there is nothing more for you to do here.`,
  },
};

/** Shown when the application was already decided or cancelled: opening the link again is harmless. */
export function OutcomePage(props: { outcome: Outcome; merchantName: string; orderNumber: string; backUrl?: string }) {
  const { heading, message } = OUTCOMES[props.outcome];
  return (
    <Layout title={`${heading} · ${props.merchantName}`}>
      <div class="card" data-outcome={props.outcome}>
        <p class="merchant">{props.merchantName}</p>
        <h1>{heading}</h1>
        <p>{message(props.orderNumber, props.merchantName)}</p>
      </div>
      {props.backUrl ? (
        <a class="button primary" href={props.backUrl}>
          Return to {props.merchantName}
        </a>
      ) : null}
    </Layout>
  );
}

export function ErrorPage(props: { heading: string; message: string; reference?: string }) {
  return (
    <Layout title={props.heading}>
      <div class="card">
        <h1>{props.heading}</h1>
        <p>{props.message}</p>
        {props.reference ? <p class="muted">Reference: {props.reference}</p> : null}
      </div>
    </Layout>
  );
}
