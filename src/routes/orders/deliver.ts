import { openApiRoute } from "../../api";
import { changeOrRefuse } from "../../api/application-change";
import { planDeliver } from "../../domain/order-operations";
import { presentContext, presentOrder } from "../applications/present";
import examples from "../examples.json";
import {
  DOCUMENT_REFUSALS,
  ITEM_OPERATION_REFUSALS,
  orderOperationRoute,
  withAcceptedDocument,
} from "./operation-route";
import { DeliverRequest } from "./schema";

const route = orderOperationRoute({
  operationId: "deliverItems",
  path: "/order/deliver",
  summary: "Mark order items as delivered",
  description:
    "Needs state READY. Without `items` every item not yet delivered (nor cancelled or returned) is marked DELIVERED; a line not yet sent is sent too (its `sentDate` becomes `sentDate`, else `deliveryDate`). `deliveryDate` defaults to today. When every active item is delivered the stateReason becomes READY_DELIVERED. An optional `document` is kept with the order, as a return's is.",
  body: DeliverRequest,
  example: examples.deliverRequest,
  refusals: {
    ...ITEM_OPERATION_REFUSALS,
    AUTHORIZATION_EXPIRED: "delivering goods never sent, once their authorization lapsed at expiresAt",
    DISCOUNT_NOT_SEPARABLE:
      "the goods that went out would not cover the order's discount: deliver more of them at once",
    ...DOCUMENT_REFUSALS,
  },
});

export const deliverOrder = openApiRoute(route, async (c) => {
  const request = withAcceptedDocument(c.req.valid("json"));
  const { aggregate } = await changeOrRefuse(c, c.req.valid("param").applicationId, (current, ctx) =>
    planDeliver(current, request, ctx),
  );
  return c.json(presentOrder(aggregate, presentContext(c)), 200);
});
