import { applyToLines, financedAmount } from "../../domain/order-lines";
import { router } from "../../http/openapi";
import { newId } from "../../ids";
import { assertPermitted, operate } from "../applications/operate";
import { presentContext, presentOrder } from "../applications/present";
import { changedLines, nextState, orderOperationRoute, refuse } from "./common";
import { CancelItemsRequest } from "./schema";

const route = orderOperationRoute({
  path: "/order/cancel",
  summary: "Cancel order items",
  description:
    "Cancels items not yet sent: without `items` (or with an empty body) every such item, else the given units (identifiers must all match; a partial quantity splits the line). The financed total drops by the cancelled amount. Cancelling every remaining item cancels the application (CANCELLED_NOT_PAID). Refusals (422): APPLICATION_REJECTED, APPLICATION_ALREADY_CANCELLED, ITEM_NOT_FOUND (also for items already sent), INVALID_QUANTITY, REFUND_LIMIT_EXCEEDED (refunds already exceed what would remain financed).",
  body: CancelItemsRequest,
});

export const cancelOrderItems = router().openapi(route, async (c) => {
  const { items } = c.req.valid("json");
  const aggregate = await operate(c, c.req.valid("param").applicationId, (current) => {
    assertPermitted("CANCEL_ITEMS", current);
    const lines = changedLines(
      applyToLines(current.lines, items, (line) => line.state === "PROCESSING", { state: "CANCELLED" }, newId),
      { code: "ITEM_NOT_FOUND", message: "no item is left that was not sent", attribute: "items" },
    );
    const financed = financedAmount(lines.lines);
    if (financed < current.application.refundedAmount) {
      refuse([
        {
          code: "REFUND_LIMIT_EXCEEDED",
          message: `refunds of ${current.application.refundedAmount} exceed the ${financed} that would remain financed`,
          attribute: "items",
        },
      ]);
    }
    return { patch: { ...nextState(current, lines), totalAmount: financed }, lines };
  });
  return c.json(presentOrder(aggregate, presentContext(c)), 200);
});
