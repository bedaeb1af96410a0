/**
 * A payout's report as CSV (RFC 4180: comma-separated, fields quoted where they must be, CRLF line
 * ends, a header row), written by Papa Parse: one small file with no Node-only import, so it runs in
 * the Worker as in Node, and its parser reads the report back in the tests.
 */
import Papa from "papaparse";
import { formatDateTime } from "../clock";
import { payoutReportRows, REPORT_COLUMNS, type ReportEntry } from "../domain/payout-report";
import type { Payout } from "../domain/payouts";

/**
 * The report of `payout` over the entries it took, times in the service time zone. A text field that a
 * spreadsheet would run as a formula (a partner's order number starting with =, +, -, @) is prefixed
 * with ' (Papa Parse's escapeFormulae): a finance team opens these files in a spreadsheet. Amounts are
 * numbers and stay as they are, negative ones included.
 */
export function payoutReportCsv(
  payout: Pick<Payout, "reference">,
  entries: readonly ReportEntry[],
  timeZone: string,
): string {
  return csvOf(payout, entries, timeZone, true);
}

/** Rows of the report (with its header row first when `header`), without a line break after the last. */
function csvOf(payout: Pick<Payout, "reference">, entries: readonly ReportEntry[], timeZone: string, header: boolean) {
  const rows = payoutReportRows(payout, entries, (ms) => formatDateTime(ms, timeZone));
  return Papa.unparse(
    { fields: [...REPORT_COLUMNS], data: rows.map((row) => REPORT_COLUMNS.map((column) => row[column])) },
    { newline: "\r\n", escapeFormulae: true, header },
  );
}

/** A payout's report as a download, named by the payout's reference (the API's and the console's alike). */
export const payoutReportHeaders = (payout: Pick<Payout, "reference">) => ({
  "Content-Type": "text/csv; charset=utf-8",
  "Content-Disposition": `attachment; filename="payout-${payout.reference}.csv"`,
});

/**
 * The report written as its entries are read, page after page: a payout of a busy day holds many
 * thousands, and its report is never held whole in memory (nor is its first byte late).
 */
export function payoutReportStream(
  payout: Pick<Payout, "reference">,
  pages: AsyncIterable<readonly ReportEntry[]>,
  timeZone: string,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = pages[Symbol.asyncIterator]();
  let first = true;
  return new ReadableStream({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) {
        // A payout holds an entry at least; should one hold none, its report is still its header.
        if (first) controller.enqueue(encoder.encode(REPORT_COLUMNS.join(",")));
        controller.close();
        return;
      }
      const text = csvOf(payout, next.value, timeZone, first);
      controller.enqueue(encoder.encode(first ? text : `\r\n${text}`));
      first = false;
    },
  });
}
