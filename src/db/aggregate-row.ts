/** The application aggregate from the one row that reads it with its lines and documents (src/db/application-reads.ts, the list's pages). */
import type { FinancingType } from "../domain/partner-terms";
import type { Aggregate, ApplicationPageRow, PresentedAggregate } from "./applications";
import { type TermsRow, termsOf } from "./partner-terms";

/** A row of one statement (the application with its lines and documents as JSON subqueries) → the aggregate. */
export function aggregateFromRow<A extends PresentedAggregate>({
  lines,
  documents,
  ...application
}: object & {
  lines: unknown;
  documents: unknown;
}) {
  // The states were stored from the domain's enums; the lines' columns are a domain `Line`'s.
  return { application, lines, documents } as unknown as A;
}

/** A list page's row → what presenting it needs. */
export const aggregateOf = (row: ApplicationPageRow) => aggregateFromRow<PresentedAggregate>(row);

/** A write's row (the whole application, its shipments and its partner's terms beside) → the aggregate a plan reads. */
export function aggregateToWrite({
  shipments,
  partner,
  ...row
}: object & {
  lines: unknown;
  documents: unknown;
  shipments: { id: string; lineIds: string[] }[];
  partner: TermsRow;
}): Aggregate {
  const aggregate = aggregateFromRow<Omit<Aggregate, "settlement"> & PresentedAggregate>(row);
  const app = aggregate.application;
  return {
    ...aggregate,
    settlement: {
      application: {
        id: app.id,
        partnerId: app.partnerId,
        type: app.type as FinancingType,
        currency: app.currency,
        orderNumber: app.orderNumber,
        variableSymbols: app.variableSymbols === "" ? [] : app.variableSymbols.split(","),
      },
      deliveryCarrier: app.orderDetails.deliveryCarrier ?? null,
      terms: termsOf(partner),
      shipments,
    },
  };
}
