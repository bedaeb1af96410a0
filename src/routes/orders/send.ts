import { openApiRoute } from "../../api";
import { changeOrRefuse } from "../../api/application-change";
import { planSend } from "../../domain/order-operations";
import { presentContext, presentOrder } from "../applications/present";
import examples from "../examples.json";
import {
  DOCUMENT_REFUSALS,
  ITEM_OPERATION_REFUSALS,
  orderOperationRoute,
  withAcceptedDocument,
} from "./operation-route";
import { SendRequest } from "./schema";

const route = orderOperationRoute({
  operationId: "sendItems",
  path: "/order/send",
  summary: "Mark order items as sent",
  description:
    "Needs state READY (goods go out only after approval). Without `items` (or with an empty body) every item not yet sent is marked SENT; with `items`, the given units (a partial quantity splits the line). `sentDate` defaults to today. The application's stateReason becomes READY_SHIPPED. An optional `document` (the invoice, say) is kept with the order, as a return's is.",
  body: SendRequest,
  example: examples.sendRequest,
  refusals: {
    ...ITEM_OPERATION_REFUSALS,
    ORDER_ALREADY_SENT: "nothing left to send",
    AUTHORIZATION_EXPIRED: "the authorization of the goods not yet sent lapsed at expiresAt",
    DISCOUNT_NOT_SEPARABLE: "the goods that went out would not cover the order's discount: send more of them at once",
    ...DOCUMENT_REFUSALS,
  },
});

export const sendOrder = openApiRoute(route, async (c) => {
  const request = withAcceptedDocument(c.req.valid("json"));
  const { aggregate } = await changeOrRefuse(c, c.req.valid("param").applicationId, (current, ctx) =>
    planSend(current, request, ctx),
  );
  return c.json(presentOrder(aggregate, presentContext(c)), 200);
});
