/**
 * What the customer is told and where they go once their application is decided (CONTRACT 6). Pure:
 * no HTTP, no SQL.
 */
import type { MerchantUrls } from "./application-operations";
import type { ApplicationState } from "./application-state";
import { type UrlPolicy, unsafeUrlReason } from "./url-safety";

export type Outcome = "approved" | "rejected" | "cancelled";

/** What the customer is told once the application left PROCESSING; undefined while it waits for them. */
export function outcomeOf(state: ApplicationState): Outcome | undefined {
  switch (state) {
    case "PROCESSING":
      return undefined;
    case "READY":
      return "approved";
    case "REJECTED":
      return "rejected";
    case "CANCELLED":
      return "cancelled";
  }
}

/**
 * Where the customer goes back to the shop: `approvedRedirect` when approved, `rejectedRedirect`
 * otherwise (cancelled included, CONTRACT 6), with `applicationId` added to the partner's own query.
 * The existing query is kept byte for byte (not re-encoded through URLSearchParams), so a partner's
 * signed or oddly encoded parameters survive. Undefined when the URL is not one the service may send
 * a customer to (checked again at every redirect, as at create): no open redirect into a network.
 */
export function outcomeRedirect(
  application: { id: string; state: ApplicationState; merchantUrls: MerchantUrls },
  policy: UrlPolicy,
): string | undefined {
  const urls = application.merchantUrls;
  const target = application.state === "READY" ? urls.approvedRedirect : urls.rejectedRedirect;
  if (unsafeUrlReason(target, policy)) return undefined;
  const url = new URL(target);
  const parameter = `applicationId=${encodeURIComponent(application.id)}`;
  url.search = url.search.length > 1 ? `${url.search}&${parameter}` : `?${parameter}`;
  return url.toString();
}
