import type { Vars } from "./api";
import { send } from "./api";
import { applicationRequest } from "./factories";
import { dbOfApplication } from "./shards";

/**
 * A request to the gateway as a browser sends it: through the Worker's entry point, or with `vars` through
 * the same app with overridden variables (as call() does for JSON). Redirects are never followed, so
 * tests see the 303 and its Location.
 */
export async function browse(url: string, init: RequestInit = {}, vars?: Vars): Promise<Response> {
  return send(url, { ...init, redirect: "manual" }, vars);
}

export interface Page {
  status: number;
  headers: Headers;
  html: string;
  /** What a reader sees: tags and the style sheet removed, whitespace collapsed as a browser would. */
  text: string;
}

export async function openGateway(url: string, vars?: Vars): Promise<Page> {
  const res = await browse(url, {}, vars);
  // Intl puts (narrow) no-break spaces between currency and amount; compare with plain spaces.
  const html = (await res.text()).replace(/[\u00a0\u202f]/g, " ");
  const text = html
    .replace(/<style>[\s\S]*?<\/style>/, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .replace(/ ([.,])/g, "$1")
    .trim();
  return { status: res.status, headers: res.headers, html, text };
}

/** The hidden inputs of a page's form (the offer token), as a browser would send them back. */
export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)"\/?>/g)) {
    fields[name!] = value!;
  }
  return fields;
}

/**
 * The customer answers the page as a browser would: the page is opened, and its form posted with its
 * hidden fields and `fields`. (A page that shows an outcome has no form: then only `fields` go.)
 */
export async function submitGateway(url: string, fields: Record<string, string>, vars?: Vars): Promise<Response> {
  const page = await openGateway(url, vars);
  return postGateway(url, { ...hiddenFields(page.html), ...fields }, vars);
}

/** The form posted as it is, without opening the page first: `fields` are all that is sent. */
export function postGateway(url: string, fields: Record<string, string>, vars?: Vars): Promise<Response> {
  return browse(
    url,
    {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    },
    vars,
  );
}

/**
 * A valid create request whose order is one item of `amount` minor units (CZK, VAT 21 % included), so
 * that the order total is exactly `amount`.
 */
export function requestWithTotal(amount: number, overrides: Parameters<typeof applicationRequest>[0] = {}) {
  const base = applicationRequest(overrides);
  const vat = { vatRate: 21, amount: Math.round((amount * 21) / 121), currency: "CZK" };
  const total = { amount, currency: "CZK" };
  return {
    ...base,
    order: {
      ...base.order,
      totalPrice: total,
      totalVat: [vat],
      items: [{ code: "LAMP-1", name: "Desk lamp", type: "PHYSICAL", quantity: 1, totalPrice: total, totalVat: vat }],
    },
  };
}

export interface StoredDecision {
  state: string;
  stateReason: string;
  agreement: number;
  approvedAmount: number | null;
  decisionReasons: string[] | null;
  decidedAt: number | null;
  cancelReason: string | null;
}

/** The decision columns as D1 holds them (the partner's view does not show the audit reasons). */
export async function storedDecision(applicationId: string): Promise<StoredDecision> {
  const row = await (await dbOfApplication(applicationId))
    .prepare(
      `SELECT state, state_reason AS stateReason, agreement_terms_and_conditions AS agreement,
            approved_amount AS approvedAmount, decision_reasons AS decisionReasons, decided_at AS decidedAt,
            cancel_reason AS cancelReason
     FROM applications WHERE id = ?`,
    )
    .bind(applicationId)
    .first<Omit<StoredDecision, "decisionReasons"> & { decisionReasons: string | null }>();
  if (!row) throw new Error(`no application ${applicationId}`);
  return { ...row, decisionReasons: row.decisionReasons === null ? null : JSON.parse(row.decisionReasons) };
}
