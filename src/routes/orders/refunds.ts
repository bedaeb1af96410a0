import { createRoute } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { session } from "../../auth/require-session";
import { config } from "../../config";
import { database } from "../../db/client";
import { assertOwnApplication } from "../../db/ownership";
import { type Collection, keysetPage, PageQuery, pageOf, pagingInfo, parsePageRequest } from "../../db/paging";
import { refunds } from "../../db/schema";
import { bearerSecurity, commonErrors, jsonContent, router } from "../../http/openapi";
import { ApplicationIdParam } from "../applications/schema";
import { presentRefund } from "./refund";
import { Refund } from "./schema";

/** Refunds page in creation order (their id); no other sort or filter. */
const refundsCollection = {
  table: refunds,
  id: refunds.id,
  sortable: { id: refunds.id },
  filterable: {},
} satisfies Collection<typeof refunds>;

const route = createRoute({
  method: "get",
  path: "/financing/v1/applications/{applicationId}/refunds",
  tags: ["Refunds"],
  summary: "List refunds",
  description:
    "Every refund of the application, those created by returns (`origin` RETURN) and directly (REFUND), oldest first, paged like every collection.",
  security: bearerSecurity,
  request: { params: ApplicationIdParam, query: PageQuery },
  responses: { 200: jsonContent(pageOf(Refund, "RefundPage"), "A page of refunds"), ...commonErrors },
});

export const listRefunds = router().openapi(route, async (c) => {
  const { applicationId } = c.req.valid("param");
  const db = database(c.env);
  await assertOwnApplication(db, session(c).partnerId, applicationId);
  const request = parsePageRequest(refundsCollection, c.req.url, c.req.valid("query"));
  const page = await keysetPage(db, refundsCollection, eq(refunds.applicationId, applicationId), request);
  const timeZone = config(c.env).SERVICE_TIMEZONE;
  return c.json(
    {
      data: page.rows.map((row) => presentRefund(row, timeZone)),
      pagingInfo: pagingInfo(new URL(c.req.url).pathname, request, page),
    },
    200,
  );
});
