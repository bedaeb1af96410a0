import { applyToLines } from "../../domain/order-lines";
import { router } from "../../http/openapi";
import { newId } from "../../ids";
import { assertPermitted, operate } from "../applications/operate";
import { presentContext, presentOrder } from "../applications/present";
import { changedLines, nextState, orderOperationRoute, today } from "./common";
import { DeliverRequest } from "./schema";

const route = orderOperationRoute({
  path: "/order/deliver",
  summary: "Mark order items as delivered",
  description:
    "Needs state READY. Without `items` every item not yet delivered (nor cancelled or returned) is marked DELIVERED; a line not yet sent is sent too (its `sentDate` becomes `sentDate`, else `deliveryDate`). `deliveryDate` defaults to today. When every active item is delivered the stateReason becomes READY_DELIVERED. Refusals (422): APPLICATION_NOT_READY, APPLICATION_REJECTED, APPLICATION_ALREADY_CANCELLED, ITEM_NOT_FOUND, INVALID_QUANTITY.",
  body: DeliverRequest,
});

export const deliverOrder = router().openapi(route, async (c) => {
  const { items, sentDate, deliveryDate, deliveryTrackingNumber } = c.req.valid("json");
  const delivered = deliveryDate ?? today(c.env);
  const aggregate = await operate(c, c.req.valid("param").applicationId, (current) => {
    assertPermitted("DELIVER", current);
    const outcome = applyToLines(
      current.lines,
      items,
      (line) => line.state === "PROCESSING" || line.state === "SENT",
      { state: "DELIVERED", deliveryDate: delivered, ...(deliveryTrackingNumber ? { deliveryTrackingNumber } : {}) },
      newId,
    );
    const change = changedLines(outcome, {
      code: "ITEM_NOT_FOUND",
      message: "no item is left to deliver",
      attribute: "items",
    });
    // Delivered implies sent: a line that skipped sending keeps a sent date too.
    const touched = new Set([...change.updated, ...change.created]);
    const lines = {
      ...change,
      lines: change.lines.map((line) =>
        touched.has(line.id) && line.sentDate === null ? { ...line, sentDate: sentDate ?? delivered } : line,
      ),
    };
    return { patch: nextState(current, lines), lines };
  });
  return c.json(presentOrder(aggregate, presentContext(c)), 200);
});
