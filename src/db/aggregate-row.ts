/** The application aggregate from the one row that reads it with its lines and documents (src/db/application-reads.ts, the list's pages). */
import type { ApplicationPageRow, PresentedAggregate } from "./applications";

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
