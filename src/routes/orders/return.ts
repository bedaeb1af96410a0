import { openApiRoute } from "../../api";
import { changeOrRefuse } from "../../api/application-change";
import { planReturn } from "../../domain/order-operations";
import { presentContext, presentOrder } from "../applications/present";
import examples from "../examples.json";
import {
  DOCUMENT_REFUSALS,
  ITEM_OPERATION_REFUSALS,
  orderOperationRoute,
  withAcceptedDocument,
} from "./operation-route";
import { ReturnRequest } from "./schema";

const route = orderOperationRoute({
  operationId: "returnItems",
  path: "/order/return",
  summary: "Mark order items as returned (creates a refund)",
  description:
    "Needs state READY. `items` omitted (or an empty body): everything that went out is returned, items never sent are cancelled, the order becomes RETURNED and the application CANCELLED / CANCELLED_RETURNED; the refund is `totalPrice` or else all that is still refundable. `items` listed: those sent or delivered units are returned; the refund is `totalPrice` or else their price. `items: []` with `totalPrice`: an amount-only refund, items unchanged. A refund above `refundablePrice` is refused whole. A DISCOUNT line is never returned on its own: it comes back with the last of the other items (and then lowers that return's refund by the discount), and until then stays whole with the items that remain. An optional `document` (base64, at most 500 kB, a type of the spec's table) is kept with the order.",
  body: ReturnRequest,
  example: examples.returnRequest,
  refusals: {
    ...ITEM_OPERATION_REFUSALS,
    NOTHING_TO_RETURN: "",
    DISCOUNT_NOT_SEPARABLE: "",
    REFUND_LIMIT_EXCEEDED: "a refund below 1, or above what is refundable",
    TOTAL_PRICE_LIMIT_EXCEEDED: "",
    ...DOCUMENT_REFUSALS,
  },
});

export const returnOrder = openApiRoute(route, async (c) => {
  const request = withAcceptedDocument(c.req.valid("json"));
  const { aggregate } = await changeOrRefuse(c, c.req.valid("param").applicationId, (current, ctx) =>
    planReturn(current, request, ctx),
  );
  return c.json(presentOrder(aggregate, presentContext(c)), 200);
});
