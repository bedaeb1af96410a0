import { openApiRoute } from "../../api";
import { changeOrRefuse } from "../../api/application-change";
import { planCancelItems } from "../../domain/order-operations";
import { presentContext, presentOrder } from "../applications/present";
import examples from "../examples.json";
import { ITEM_OPERATION_REFUSALS, orderOperationRoute } from "./operation-route";
import { CancelItemsRequest } from "./schema";

const route = orderOperationRoute({
  operationId: "cancelItems",
  path: "/order/cancel",
  summary: "Cancel order items",
  description:
    "Cancels items not yet sent: without `items` (or with an empty body) every such item, else the given units (identifiers must all match; a partial quantity splits the line). The financed total drops by the cancelled amount. Cancelling every remaining item cancels the application (CANCELLED_NOT_PAID). A DISCOUNT line is never cancelled on its own: it is cancelled with the last of the other items, and until then stays whole with the items that remain.",
  body: CancelItemsRequest,
  example: examples.cancelItemsRequest,
  refusals: {
    APPLICATION_NOT_READY: "under manual review: the order stays as the customer agreed it",
    APPLICATION_REJECTED: "",
    APPLICATION_ALREADY_CANCELLED: "",
    ITEM_NOT_FOUND: "also for items already sent",
    INVALID_QUANTITY: "",
    DISCOUNT_NOT_SEPARABLE: "a DISCOUNT line named, or a discount larger than what would remain",
    REFUND_LIMIT_EXCEEDED: "refunds already exceed what would remain financed",
    TOTAL_PRICE_LIMIT_EXCEEDED: "",
    LINE_LIMIT_REACHED: ITEM_OPERATION_REFUSALS.LINE_LIMIT_REACHED,
    APPLICATION_SIZE_LIMIT_REACHED: ITEM_OPERATION_REFUSALS.APPLICATION_SIZE_LIMIT_REACHED,
  },
});

export const cancelOrderItems = openApiRoute(route, async (c) => {
  const request = c.req.valid("json");
  const { aggregate } = await changeOrRefuse(c, c.req.valid("param").applicationId, (current, ctx) =>
    planCancelItems(current, request, ctx),
  );
  return c.json(presentOrder(aggregate, presentContext(c)), 200);
});
