import { type Context, Hono } from "hono";
import { now, today } from "../clock";
import { urlPolicy } from "../config";
import { loadAggregate } from "../db/application-reads";
import type { Aggregate } from "../db/applications";
import { aggregateOrArchived } from "../db/archive";
import { outcomeOf, outcomeRedirect } from "../domain/customer-outcome";
import { formatMoney } from "../domain/money";
import { offerOf, offerToken } from "../domain/offer";
import type { HonoEnv } from "../env";
import { errorPage } from "./errors";
import { GATEWAY_PATH, type GatewayOwner, gatewayOwner } from "./load";
import { ApplicationPage, OutcomePage } from "./pages";

/** The outcome, with a way back to the shop where the partner's URL is one we may send a customer to. */
export function outcomePage(c: Context<HonoEnv>, owner: GatewayOwner, app: Aggregate["application"]) {
  return c.html(
    <OutcomePage
      outcome={outcomeOf(app, now())!}
      merchantName={owner.merchantName}
      orderNumber={app.orderDetails.number}
      backUrl={outcomeRedirect(app, urlPolicy(c.var.config))}
    />,
  );
}

/**
 * The offer: what confirming today would mean, and the form whose hidden token names exactly this offer
 * (src/domain/offer.ts). `changed`: shown again because the offer the customer answered has changed.
 */
export function offerPage(c: Context<HonoEnv>, owner: GatewayOwner, aggregate: Aggregate, changed = false) {
  const { application: app } = aggregate;
  const termsDate = today(c.var.config.SERVICE_TIMEZONE);
  const offer = offerOf(aggregate, termsDate);
  const money = (amount: number) => formatMoney(amount, offer.currency);
  return c.html(
    <ApplicationPage
      view={{
        merchantName: owner.merchantName,
        type: offer.type,
        orderNumber: app.orderDetails.number,
        items: offer.items.map((i) => ({ name: i.name, quantity: i.quantity, total: money(i.total) })),
        total: money(offer.total),
        instalments: offer.instalments.map((i) => ({ ...i, amount: money(i.amount) })),
        agreementNeeded: !app.agreementTermsAndConditions,
        offerToken: offerToken(aggregate, termsDate),
        changed,
      }}
    />,
    changed ? 409 : 200,
  );
}

/** GET: the offer while the application waits for the customer, its outcome afterwards. */
export const showGateway = new Hono<HonoEnv>().get(GATEWAY_PATH, async (c) => {
  const { applicationId, token } = c.req.param();
  const owner = await gatewayOwner(c, applicationId, token);
  if (!owner) return errorPage(c, 404);
  const found = await loadAggregate(c.var.db.client, owner.partnerId, applicationId);
  if (!found) return errorPage(c, 404);
  // An archived application is finished: its outcome, as it was.
  const aggregate = await aggregateOrArchived(c.env.ARCHIVE, found);
  if (outcomeOf(aggregate.application, now())) return outcomePage(c, owner, aggregate.application);
  return offerPage(c, owner, aggregate);
});
