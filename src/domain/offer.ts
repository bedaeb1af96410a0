/**
 * What the customer is offered at the gateway, and agrees to by confirming: the order as it will be
 * financed, its total, and the terms that confirming on a given day means. Pure: no HTTP, no SQL.
 *
 * Consent is bound to the offer the customer saw: the page carries the offer's token, and a confirm or
 * cancel decides only while that token still names the current offer. Any write to the application
 * (the partner changing the order while the page is open, in this tab or another) or a new day (the due
 * dates move) makes a new offer, and the customer is shown it to confirm again. The token is the
 * application's version with the day: every write bumps the version, so no change of the order, however
 * crafted, can keep an old token valid.
 */
import { type Instalment, instalments } from "./financing-terms";
import type { Current } from "./plan";

export interface OfferedItem {
  code: string;
  name: string;
  quantity: number;
  /** Minor units. */
  total: number;
}

export interface Offer {
  type: string;
  currency: string;
  /** The financed total, minor units. */
  total: number;
  /** The day the terms are computed for (`YYYY-MM-DD`, the service time zone): their due dates follow from it. */
  termsDate: string;
  items: OfferedItem[];
  instalments: Instalment[];
}

/** The offer confirming on `termsDate` means: the lines not cancelled, and the terms of their total. */
export function offerOf(current: Current, termsDate: string): Offer {
  const app = current.application;
  const items = current.lines
    .filter((l) => l.state !== "CANCELLED")
    .map((l) => ({ code: l.code, name: l.name, quantity: l.quantity, total: l.totalPriceAmount }));
  const total = items.reduce((sum, i) => sum + i.total, 0);
  return {
    type: app.type,
    currency: app.currency,
    total,
    termsDate,
    items,
    instalments: instalments(app.type, total, termsDate),
  };
}

/** The token of the offer the page shows on `termsDate`; it names that offer and no later one. */
export function offerToken(current: Current, termsDate: string): string {
  return `${current.application.version}.${termsDate}`;
}
