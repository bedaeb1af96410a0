import { applyToLines } from "../../domain/order-lines";
import { router } from "../../http/openapi";
import { newId } from "../../ids";
import { assertPermitted, operate } from "../applications/operate";
import { presentContext, presentOrder } from "../applications/present";
import { changedLines, nextState, orderOperationRoute, today } from "./common";
import { SendRequest } from "./schema";

const route = orderOperationRoute({
  path: "/order/send",
  summary: "Mark order items as sent",
  description:
    "Needs state READY (goods go out only after approval). Without `items` (or with an empty body) every item not yet sent is marked SENT; with `items`, the given units (a partial quantity splits the line). `sentDate` defaults to today. The application's stateReason becomes READY_SHIPPED. Refusals (422): APPLICATION_NOT_READY, APPLICATION_REJECTED, APPLICATION_ALREADY_CANCELLED, ITEM_NOT_FOUND, INVALID_QUANTITY, ORDER_ALREADY_SENT (nothing left to send).",
  body: SendRequest,
});

export const sendOrder = router().openapi(route, async (c) => {
  const { items, sentDate, deliveryTrackingNumber } = c.req.valid("json");
  const date = sentDate ?? today(c.env);
  const aggregate = await operate(c, c.req.valid("param").applicationId, (current) => {
    assertPermitted("SEND", current);
    const lines = changedLines(
      applyToLines(
        current.lines,
        items,
        (line) => line.state === "PROCESSING",
        { state: "SENT", sentDate: date, ...(deliveryTrackingNumber ? { deliveryTrackingNumber } : {}) },
        newId,
      ),
      { code: "ORDER_ALREADY_SENT", message: "every item is already sent, delivered or cancelled", attribute: "items" },
    );
    return { patch: nextState(current, lines), lines };
  });
  return c.json(presentOrder(aggregate, presentContext(c)), 200);
});
