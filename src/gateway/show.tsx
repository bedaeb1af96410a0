import { type Context, Hono } from "hono";
import { today } from "../clock";
import { config, urlPolicy } from "../config";
import { type Aggregate, loadAggregate } from "../db/applications";
import { database } from "../db/client";
import { instalments } from "../domain/financing-terms";
import type { HonoEnv } from "../env";
import { errorPage } from "./errors";
import { formatMoney } from "./format";
import { GATEWAY_PATH, type GatewayOwner, gatewayOwner } from "./load";
import { outcomeOf, outcomeRedirect } from "./outcome";
import { ApplicationPage, OutcomePage } from "./pages";

/** The outcome, with a way back to the shop where the partner's URL is one we may send a customer to. */
export function outcomePage(c: Context<HonoEnv>, owner: GatewayOwner, app: Aggregate["application"]) {
  return c.html(
    <OutcomePage
      outcome={outcomeOf(app.state)!}
      merchantName={owner.merchantName}
      orderNumber={app.orderDetails.number}
      backUrl={outcomeRedirect(app, urlPolicy(config(c.env)))}
    />,
  );
}

/** GET: the offer while the application waits for the customer, its outcome afterwards. */
export const showGateway = new Hono<HonoEnv>().get(GATEWAY_PATH, async (c) => {
  const { applicationId, token } = c.req.param();
  const owner = await gatewayOwner(c, applicationId, token);
  if (!owner) return errorPage(c, 404);
  const aggregate = await loadAggregate(database(c.env), owner.partnerId, applicationId);
  if (!aggregate) return errorPage(c, 404);
  const { application: app, lines } = aggregate;
  const { number: orderNumber } = app.orderDetails;

  if (outcomeOf(app.state)) return outcomePage(c, owner, app);

  // The terms are computed, not stored: they are what confirming today would mean.
  const date = today(config(c.env).SERVICE_TIMEZONE);
  const money = (amount: number) => formatMoney(amount, app.currency);
  return c.html(
    <ApplicationPage
      view={{
        merchantName: owner.merchantName,
        type: app.type,
        orderNumber,
        // Lines the partner already cancelled are not financed, so not shown.
        items: lines
          .filter((l) => l.state !== "CANCELLED")
          .map((l) => ({ name: l.name, quantity: l.quantity, total: money(l.totalPriceAmount) })),
        total: money(app.totalAmount),
        instalments: instalments(app.type, app.totalAmount, date).map((i) => ({ ...i, amount: money(i.amount) })),
        agreementNeeded: !app.agreementTermsAndConditions,
      }}
    />,
  );
});
