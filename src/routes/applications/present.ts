/**
 * Rows → the partner's view. Totals, VAT per rate and the order state are derived from the lines here,
 * never stored twice. Absent optional values are omitted, not null.
 */

import type { Context } from "hono";
import { gatewayUrl } from "../../auth/gateway-token";
import { formatDateTime } from "../../clock";
import type { PresentedAggregate } from "../../db/applications";
import { deriveOrderState } from "../../domain/application-state";
import { ledgerOf, refundableAmount } from "../../domain/ledger";
import { type Line, vatPerRate } from "../../domain/order-lines";
import type { HonoEnv } from "../../env";
import type { Infer } from "../../lazy-schema";
import type { Application, CustomerInput, OrderWithApplication } from "./schema";

export interface PresentContext {
  timeZone: string;
  baseUrl: string;
  pepper: string;
  /** The partner's shard (src/db/shards.ts): its gateway links name it. */
  shard: number;
}

type ApplicationView = Infer<typeof Application>;
type OrderView = Infer<typeof OrderWithApplication>;

const money = (amount: number, currency: string) => ({ amount, currency });

function present<T extends object>(value: T): T {
  // A loop, not entries/filter/fromEntries: it runs for every line of every application on a page.
  const shown: Record<string, unknown> = {};
  for (const key in value) {
    const v = value[key];
    if (v !== null && v !== undefined) shown[key] = v;
  }
  return shown as T;
}

function item(line: Line, currency: string) {
  return present({
    code: line.code,
    ean: line.ean,
    name: line.name,
    type: line.type,
    variant: line.variant,
    producer: line.producer,
    categories: line.categories,
    quantity: line.quantity,
    unitPrice: line.unitPriceAmount === null ? null : money(line.unitPriceAmount, currency),
    totalPrice: money(line.totalPriceAmount, currency),
    unitVat:
      line.unitVatRate === null || line.unitVatAmount === null
        ? null
        : { vatRate: line.unitVatRate, amount: line.unitVatAmount, currency },
    totalVat: { vatRate: line.totalVatRate, amount: line.totalVatAmount, currency },
    productUrl: line.productUrl,
    state: line.state,
    sentDate: line.sentDate,
    deliveryDate: line.deliveryDate,
    deliveryTrackingNumber: line.deliveryTrackingNumber,
  }) as OrderView["items"][number];
}

export function presentOrder(aggregate: PresentedAggregate, ctx: PresentContext): OrderView {
  const { application: app, lines } = aggregate;
  const details = app.orderDetails;
  const ledger = ledgerOf(app, lines);
  return present({
    number: details.number,
    reservationDate:
      details.reservationDate === undefined ? undefined : formatDateTime(details.reservationDate, ctx.timeZone),
    state: deriveOrderState(lines.map((l) => l.state)),
    totalPrice: money(ledger.financed, app.currency),
    totalVat: vatPerRate(lines).map((vat) => ({ ...vat, currency: app.currency })),
    refundedPrice: money(ledger.refunded, app.currency),
    refundablePrice: money(refundableAmount(ledger), app.currency),
    items: lines.map((line) => item(line, app.currency)),
    addresses: details.addresses,
    variableSymbols: details.variableSymbols,
    deliveryCarrier: details.deliveryCarrier,
    channel: details.channel,
    documents: aggregate.documents.map((d) =>
      present({
        id: d.id,
        type: d.type,
        filename: d.filename,
        description: d.description,
        url: `${ctx.baseUrl}/financing/v1/applications/${app.id}/documents/${d.id}`,
      }),
    ),
    applicationInfo: { id: app.id, state: app.state, stateReason: app.stateReason },
  }) as OrderView;
}

export async function presentApplication(aggregate: PresentedAggregate, ctx: PresentContext): Promise<ApplicationView> {
  const { application: app } = aggregate;
  const { applicationInfo: _, ...order } = presentOrder(aggregate, ctx);
  return present({
    id: app.id,
    type: app.type,
    state: app.state,
    stateReason: app.stateReason,
    agreementTermsAndConditions: app.agreementTermsAndConditions,
    customer: app.customer as CustomerInput,
    order,
    merchantUrls: app.merchantUrls,
    gatewayRedirectUrl: await gatewayUrl(ctx.baseUrl, ctx.pepper, app.id, ctx.shard),
    cancellation: app.cancelReason
      ? present({ reason: app.cancelReason, customReason: app.customCancelReason })
      : undefined,
    expiresAt: app.expiresAt === null ? undefined : formatDateTime(app.expiresAt, ctx.timeZone),
    createdAt: formatDateTime(app.createdAt, ctx.timeZone),
    updatedAt: formatDateTime(app.updatedAt, ctx.timeZone),
  }) as ApplicationView;
}

/** What presenting needs from the request: the service time zone, the public origin, the pepper and the shard. */
export function presentContext(c: Context<HonoEnv>): PresentContext {
  const cfg = c.var.config;
  return {
    timeZone: cfg.SERVICE_TIMEZONE,
    baseUrl: cfg.PUBLIC_BASE_URL ?? new URL(c.req.url).origin,
    pepper: cfg.AUTH_PEPPER,
    shard: c.var.db.shard,
  };
}
