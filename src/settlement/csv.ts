/**
 * A payout's report as CSV (RFC 4180: comma-separated, fields quoted where they must be, CRLF line
 * ends, a header row), written by Papa Parse: one small file with no Node-only import, so it runs in
 * the Worker as in Node, and its parser reads the report back in the tests.
 */
import Papa from "papaparse";
import { formatDateTime } from "../clock";
import { payoutReportRows, REPORT_COLUMNS } from "../domain/payout-report";
import type { Payout } from "../domain/payouts";
import type { SettlementEntry } from "../domain/settlement-entries";

/**
 * The report of `payout` over the entries it took, times in the service time zone. A text field that a
 * spreadsheet would run as a formula (a partner's order number starting with =, +, -, @) is prefixed
 * with ' (Papa Parse's escapeFormulae): a finance team opens these files in a spreadsheet. Amounts are
 * numbers and stay as they are, negative ones included.
 */
export function payoutReportCsv(
  payout: Pick<Payout, "reference">,
  entries: readonly SettlementEntry[],
  timeZone: string,
): string {
  const rows = payoutReportRows(payout, entries, (ms) => formatDateTime(ms, timeZone));
  return Papa.unparse(
    { fields: [...REPORT_COLUMNS], data: rows.map((row) => REPORT_COLUMNS.map((column) => row[column])) },
    { newline: "\r\n", escapeFormulae: true },
  );
}
