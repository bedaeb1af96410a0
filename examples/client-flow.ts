/**
 * A partner's whole flow through a client generated from the OpenAPI document: `openapi-typescript`
 * types (generated/api.d.ts, by `npm run openapi`) and `openapi-fetch`. Every request body and answer
 * is typed from the document; `npm test` type-checks this file, and the browser test job runs it
 * against a local service. Run it yourself against `npm start`:
 *
 *   npm run example:client            # against $BASE (http://127.0.0.1:8787 unset), as the demo partner
 */
import createClient from "openapi-fetch";
import type { paths } from "../generated/api";

export interface FlowResult {
  applicationId: string;
  stateReason: string;
  refundedPrice: number;
  refundablePrice: number;
  listed: number;
  document: string;
}

/**
 * Login, create (with the README's minimal body), approve at the gateway as the customer would, extend
 * the authorization, send everything, return one item with a document, refund a goodwill amount, list, and download the document.
 * `shop` is where the partner's own pages and notification endpoint are (loopback in local runs).
 */
export async function partnerFlow(base: string, login: { username: string; password: string }, shop: string) {
  const api = createClient<paths>({ baseUrl: base });
  const problem = (step: string, error: unknown) => new Error(`${step}: ${JSON.stringify(error)}`);

  const session = await api.POST("/authentication/v1/partner", { body: login });
  if (!session.data) throw problem("login", session.error);
  const headers = { Authorization: `Bearer ${session.data.accessToken}` };

  const created = await api.POST("/financing/v1/applications", {
    headers,
    body: {
      type: "DEFERRED_PAYMENT",
      agreementTermsAndConditions: true,
      customer: { fullName: "Jana Novakova", email: "jana@example.com", phone: "+420777123456" },
      order: {
        number: `ORD-${Date.now()}`,
        totalPrice: { amount: 116000, currency: "CZK" },
        totalVat: [{ vatRate: 21, amount: 20132, currency: "CZK" }],
        items: [
          {
            code: "KB-01",
            name: "Keyboard",
            totalPrice: { amount: 100000, currency: "CZK" },
            totalVat: { vatRate: 21, amount: 17355, currency: "CZK" },
          },
          {
            code: "BK-7",
            name: "Guide to typing",
            totalPrice: { amount: 16000, currency: "CZK" },
            totalVat: { vatRate: 21, amount: 2777, currency: "CZK" },
          },
        ],
      },
      merchantUrls: {
        approvedRedirect: `${shop}/approved`,
        rejectedRedirect: `${shop}/rejected`,
        notificationEndpoint: `${shop}/notifications`,
      },
    },
  });
  if (!created.data) throw problem("create", created.error);
  const applicationId = created.data.id;
  const path = { applicationId };

  // The customer's confirm at the gateway: the page's form, posted as a browser would, with its hidden
  // `offer` token (a confirm decides only the offer the page showed).
  const page = await (await fetch(created.data.gatewayRedirectUrl)).text();
  const offer = /name="offer" value="([^"]*)"/.exec(page)?.[1] ?? "";
  const decided = await fetch(created.data.gatewayRedirectUrl, {
    method: "POST",
    body: new URLSearchParams({ offer, action: "confirm" }),
    redirect: "manual",
  });
  if (decided.status !== 303) throw problem("gateway", decided.status);

  // Approved goods not yet sent stay financed until `expiresAt` (28 days); a shop that needs longer
  // extends the authorization (up to 180 days after approval) before it lapses.
  const extended = await api.PUT("/financing/v1/applications/{applicationId}/authorization/extend", {
    headers,
    params: { path },
  });
  if (!extended.data?.expiresAt) throw problem("extend", extended.error);

  const sent = await api.PUT("/financing/v1/applications/{applicationId}/order/send", {
    headers,
    params: { path },
    body: {},
  });
  if (!sent.data) throw problem("send", sent.error);

  const returned = await api.PUT("/financing/v1/applications/{applicationId}/order/return", {
    headers,
    params: { path },
    body: {
      items: [{ code: "BK-7" }],
      document: { type: "CREDIT_NOTE", file: { filename: "credit-note.txt", content: btoa("credit note for BK-7") } },
    },
  });
  if (!returned.data) throw problem("return", returned.error);

  const refund = await api.POST("/financing/v1/applications/{applicationId}/refunds", {
    headers: { ...headers, "Idempotency-Key": `goodwill-${applicationId}` },
    params: { path },
    body: { totalPrice: { amount: 5000, currency: "CZK" }, reason: "goodwill" },
  });
  if (!refund.data) throw problem("refund", refund.error);

  const listed = await api.GET("/financing/v1/applications", {
    headers,
    params: { query: { limit: 5, sort: "-createdAt" } },
  });
  if (!listed.data) throw problem("list", listed.error);

  const current = await api.GET("/financing/v1/applications/{applicationId}", { headers, params: { path } });
  if (!current.data) throw problem("get", current.error);
  const documentId = returned.data.documents[0]!.id;
  const file = await api.GET("/financing/v1/applications/{applicationId}/documents/{documentId}", {
    headers,
    params: { path: { applicationId, documentId } },
    parseAs: "text",
  });
  if (file.error !== undefined) throw problem("download", file.error);

  return {
    applicationId,
    stateReason: current.data.stateReason,
    refundedPrice: current.data.order.refundedPrice.amount,
    refundablePrice: current.data.order.refundablePrice.amount,
    listed: listed.data.data.length,
    document: String(file.data),
  } satisfies FlowResult;
}

// Run directly: against BASE as the demo partner, with RECEIVER as the shop (its notification endpoint);
// the README's quick start exports both. A failure names the step, or says that BASE does not answer.
if (import.meta.url === `file://${process.argv[1]}`) {
  const base = process.env.BASE ?? "http://127.0.0.1:8787";
  const shop = process.env.RECEIVER ?? "http://127.0.0.1:4000";
  try {
    const result = await partnerFlow(base, { username: "demo", password: "demo-password" }, shop);
    console.log(JSON.stringify(result, null, 2));
  } catch (error) {
    const { message, cause } = error as Error & { cause?: Error };
    console.error(
      cause
        ? `example:client: no answer from BASE=${base} (${cause.message}); is npm start serving there?`
        : `example:client failed at ${message}`,
    );
    process.exit(1);
  }
}
