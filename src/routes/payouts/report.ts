import { bearerSecurity, failures, headers, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { findPayout, payoutEntryPages } from "../../db/settlement";
import { REPORT_COLUMNS } from "../../domain/payout-report";
import { ApiError } from "../../http/errors";
import { payoutReportHeaders, payoutReportStream } from "../../settlement/csv";
import { PayoutIdParam } from "./schema";

const route = {
  operationId: "getPayoutReport",
  method: "get",
  path: "/financing/v1/payouts/{payoutId}/report.csv",
  tags: ["Payouts"],
  summary: "Download a payout's report",
  description: `The payout's entries as CSV (RFC 4180: a header row, comma-separated, CRLF line ends, UTF-8), one row per entry in the order entered, amounts in minor units: the \`amount\` column adds up to the payout's \`net\`. Columns: ${REPORT_COLUMNS.join(", ")}. A text that a spreadsheet would run as a formula is prefixed with \`'\`.`,
  security: bearerSecurity,
  request: () => ({ params: PayoutIdParam() }),
  responses: () => ({
    200: {
      description: "The report",
      headers: headers(["Content-Disposition", "Cache-Control"]),
      content: {
        "text/csv": {
          schema: { type: "string" as const },
          example: `${REPORT_COLUMNS.join(",")}\r\n4281187007,01JD5B8W3K2M9N4P7Q1R6S0T5V,2026-11-23T10:00:00+01:00,SALE,2499000,CZK,01JD3Z7Q9K4M2N8P5R6S7T8V9W,2026-1187,20261187,01JD3Z9H1B6W4Q2C8X5M7N3P0R,FV-2026-1187-1,`,
        },
      },
    },
    ...failures(),
  }),
} satisfies RouteDefinition;

export const getPayoutReport = openApiRoute(route, async (c) => {
  const db = await c.var.db.orm();
  const payout = await findPayout(db, session(c).partnerId, c.req.valid("param").payoutId);
  if (!payout) throw ApiError.notFound("payout");
  return c.body(payoutReportStream(payout, payoutEntryPages(db, payout.id), c.var.config.SERVICE_TIMEZONE), 200, {
    ...payoutReportHeaders(payout),
    "Cache-Control": "private, no-store",
  });
});
