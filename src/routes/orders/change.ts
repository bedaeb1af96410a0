import { createRoute } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { database } from "../../db/client";
import { orderLines } from "../../db/schema";
import { orderConsistencyProblems } from "../../domain/money";
import { ApiError, detail } from "../../http/errors";
import { bearerSecurity, jsonBodyOf, jsonContent, router, unprocessable, writeErrors } from "../../http/openapi";
import { lineRows } from "../applications/line-rows";
import { assertPermitted, operate } from "../applications/operate";
import { presentApplication, presentContext } from "../applications/present";
import { Application, ApplicationIdParam } from "../applications/schema";
import { assertCurrency, refuse } from "./common";
import { ChangeOrderRequest } from "./schema";

const route = createRoute({
  method: "put",
  path: "/financing/v1/applications/{applicationId}/order",
  tags: ["Orders"],
  summary: "Change the order",
  description:
    "Replaces the order's items and totals (same consistency rules as at creation, same currency). Allowed in PROCESSING and READY while no item is sent or delivered; once approved the total may not rise above the approved total. Refusals (422): ORDER_ALREADY_SENT, APPLICATION_REJECTED, APPLICATION_ALREADY_CANCELLED, TOTAL_PRICE_LIMIT_EXCEEDED, REFUND_LIMIT_EXCEEDED.",
  security: bearerSecurity,
  request: { params: ApplicationIdParam, body: jsonBodyOf(ChangeOrderRequest) },
  responses: {
    200: jsonContent(Application, "The application with the new order"),
    ...writeErrors,
    422: unprocessable,
  },
});

export const changeOrder = router().openapi(route, async (c) => {
  const { order } = c.req.valid("json");
  const problems = orderConsistencyProblems(order).map((p) => detail(p.code, p.message, p.attribute));
  if (problems.length > 0) throw ApiError.badRequest(problems);
  const db = database(c.env);
  const aggregate = await operate(c, c.req.valid("param").applicationId, (current, at) => {
    assertPermitted("CHANGE_ORDER", current);
    assertCurrency(order.totalPrice, current, "order.totalPrice.currency");
    const total = order.totalPrice.amount;
    const { approvedAmount, refundedAmount } = current.application;
    if (approvedAmount !== null && total > approvedAmount) {
      refuse([
        {
          code: "TOTAL_PRICE_LIMIT_EXCEEDED",
          message: `the total may not rise above the approved ${approvedAmount}`,
          attribute: "order.totalPrice.amount",
        },
      ]);
    }
    if (total < refundedAmount) {
      refuse([
        {
          code: "REFUND_LIMIT_EXCEEDED",
          message: `${refundedAmount} is already refunded; the total cannot fall below it`,
          attribute: "order.totalPrice.amount",
        },
      ]);
    }
    const lines = lineRows(current.application.id, order.items, at);
    return {
      patch: { totalAmount: total },
      // The old lines go first (extra runs before the line writes), then the new ones are inserted.
      extra: [db.delete(orderLines).where(eq(orderLines.applicationId, current.application.id))],
      lines: { lines, created: lines.map((l) => l.id), updated: [], touchedAmount: 0 },
    };
  });
  return c.json(await presentApplication(aggregate, presentContext(c)), 200);
});
