/**
 * What the customer is told and where they go once their application is decided (CONTRACT 6). Pure:
 * no HTTP, no SQL.
 */
import type { MerchantUrls } from "./application-operations";
import type { ApplicationState, StateReason } from "./application-state";
import { lapsed } from "./deadlines";
import { type UrlPolicy, unsafeUrlReason } from "./url-safety";

export type Outcome = "approved" | "rejected" | "cancelled" | "expired" | "review";

interface CustomerView {
  id: string;
  state: ApplicationState;
  stateReason: StateReason;
  expiresAt: number | null;
  merchantUrls: MerchantUrls;
}

/**
 * What the customer is told at `at`; undefined while the offer waits for their answer. Their deadline
 * is judged at that moment: past it the offer has expired, even before the sweep records the lapse.
 * After they confirmed, a manual review may still be deciding ("review").
 */
export function outcomeOf(application: Omit<CustomerView, "id" | "merchantUrls">, at: number): Outcome | undefined {
  switch (application.state) {
    case "PROCESSING":
      if (application.stateReason === "PROCESSING_MANUAL_REVIEW") return "review";
      return lapsed(application, at) ? "expired" : undefined;
    case "READY":
      return "approved";
    case "REJECTED":
      return "rejected";
    case "CANCELLED":
      return application.stateReason === "CANCELLED_EXPIRED" ? "expired" : "cancelled";
  }
}

/**
 * Where the customer goes back to the shop: `approvedRedirect` when approved or under review (the order
 * is placed; the review's outcome comes as a notification, and nothing can be sent before it),
 * `rejectedRedirect` otherwise (cancelled and expired included, CONTRACT 6), with `applicationId`
 * added to the partner's own query.
 * The existing query is kept byte for byte (not re-encoded through URLSearchParams), so a partner's
 * signed or oddly encoded parameters survive. Undefined when the URL is not one the service may send
 * a customer to (checked again at every redirect, as at create): no open redirect into a network.
 */
export function outcomeRedirect(
  application: Pick<CustomerView, "id" | "state" | "stateReason" | "merchantUrls">,
  policy: UrlPolicy,
): string | undefined {
  const urls = application.merchantUrls;
  const onward = application.state === "READY" || application.stateReason === "PROCESSING_MANUAL_REVIEW";
  const target = onward ? urls.approvedRedirect : urls.rejectedRedirect;
  if (unsafeUrlReason(target, policy)) return undefined;
  const url = new URL(target);
  const parameter = `applicationId=${encodeURIComponent(application.id)}`;
  url.search = url.search.length > 1 ? `${url.search}&${parameter}` : `?${parameter}`;
  return url.toString();
}
