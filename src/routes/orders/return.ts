import type { BatchItem } from "drizzle-orm/batch";
import { database } from "../../db/client";
import { documents, refunds } from "../../db/schema";
import { applyToLines, financedAmount, type Line, type LinesChange } from "../../domain/order-lines";
import { ApiError, detail } from "../../http/errors";
import { router } from "../../http/openapi";
import { newId } from "../../ids";
import { assertPermitted, operate } from "../applications/operate";
import { presentContext, presentOrder } from "../applications/present";
import { assertCurrency, changedLines, nextState, orderOperationRoute, refuse } from "./common";
import { acceptDocument } from "./documents";
import { ReturnRequest } from "./schema";

const route = orderOperationRoute({
  path: "/order/return",
  summary: "Mark order items as returned (creates a refund)",
  description:
    "Needs state READY. `items` omitted (or an empty body): everything that went out is returned, items never sent are cancelled, the order becomes RETURNED and the application CANCELLED / CANCELLED_RETURNED; the refund is `totalPrice` or else all that is still refundable. `items` listed: those sent or delivered units are returned; the refund is `totalPrice` or else their price. `items: []` with `totalPrice`: an amount-only refund, items unchanged. A refund above `refundablePrice` is refused whole. An optional `document` (base64, at most 500 kB, a type of the spec's table) is kept with the order. Refusals (422): APPLICATION_NOT_READY, APPLICATION_REJECTED, APPLICATION_ALREADY_CANCELLED, ITEM_NOT_FOUND, INVALID_QUANTITY, NOTHING_TO_RETURN, REFUND_LIMIT_EXCEEDED, FILE_TOO_LARGE, FILE_TYPE_NOT_ALLOWED.",
  body: ReturnRequest,
});

const wentOut = (line: Line) => line.state === "SENT" || line.state === "DELIVERED";
const NOTHING_TO_RETURN = { code: "NOTHING_TO_RETURN", message: "no item was sent or delivered", attribute: "items" };

/** Everything that went out comes back; what never went out is cancelled. */
function returnEverything(lines: readonly Line[]): LinesChange {
  const returned = changedLines(
    applyToLines(lines, undefined, wentOut, { state: "RETURNED" }, newId),
    NOTHING_TO_RETURN,
  );
  const unsent = applyToLines(
    returned.lines,
    undefined,
    (l) => l.state === "PROCESSING",
    { state: "CANCELLED" },
    newId,
  );
  if (!unsent.ok) throw new Error("cancelling every unsent line cannot fail");
  return {
    lines: unsent.value.lines,
    created: [...returned.created, ...unsent.value.created],
    updated: [...new Set([...returned.updated, ...unsent.value.updated])],
    touchedAmount: returned.touchedAmount,
  };
}

export const returnOrder = router().openapi(route, async (c) => {
  const body = c.req.valid("json");
  if (body.totalPrice && body.totalPrice.amount < 1) {
    throw ApiError.badRequest([detail("INVALID_VALUE", "a refund must be positive", "totalPrice.amount")]);
  }
  if (body.items?.length === 0 && !body.totalPrice) {
    throw ApiError.badRequest([detail("REQUIRED", "an amount-only return (items: []) needs totalPrice", "totalPrice")]);
  }
  const document = body.document ? acceptDocument(body.document) : undefined;
  if (document && "code" in document) refuse([document]);
  const db = database(c.env);

  const aggregate = await operate(c, c.req.valid("param").applicationId, (current, at) => {
    assertPermitted("RETURN", current);
    assertCurrency(body.totalPrice, current, "totalPrice.currency");
    const { application } = current;

    let lines: LinesChange | undefined;
    if (body.items === undefined) lines = returnEverything(current.lines);
    else if (body.items.length > 0) {
      lines = changedLines(
        applyToLines(current.lines, body.items, wentOut, { state: "RETURNED" }, newId),
        NOTHING_TO_RETURN,
      );
    }
    const financed = financedAmount(lines?.lines ?? current.lines);
    const refundable = financed - application.refundedAmount;
    if (refundable < 0) {
      // Cancelling the items that never went out would leave less financed than was already refunded.
      refuse([
        {
          code: "REFUND_LIMIT_EXCEEDED",
          message: `refunds of ${application.refundedAmount} exceed the ${financed} that would remain financed`,
          attribute: "items",
        },
      ]);
    }
    const amount = body.totalPrice?.amount ?? (body.items === undefined ? refundable : lines!.touchedAmount);
    if (amount > refundable) {
      refuse([
        {
          code: "REFUND_LIMIT_EXCEEDED",
          message: `a refund of ${amount} exceeds the ${refundable} still refundable`,
          attribute: body.totalPrice ? "totalPrice.amount" : "items",
        },
      ]);
    }

    const variableSymbol = body.variableSymbol ?? body.document?.extraData?.variableSymbol ?? null;
    const extra: BatchItem<"sqlite">[] = [];
    const added: { id: string; type: string; filename: string; description: string | null }[] = [];
    if (amount > 0) {
      extra.push(
        db.insert(refunds).values({
          id: newId(at),
          applicationId: application.id,
          origin: "RETURN",
          amount,
          currency: application.currency,
          variableSymbol,
          createdAt: at,
        }),
      );
    }
    if (body.document && document) {
      const stored = {
        id: newId(at),
        type: body.document.type,
        filename: body.document.file.filename,
        description: body.document.description ?? null,
      };
      added.push(stored);
      extra.push(
        db.insert(documents).values({
          ...stored,
          applicationId: application.id,
          mimeType: document.mimeType,
          content: document.content,
          size: document.size,
          variableSymbol,
          createdAt: at,
        }),
      );
    }
    return {
      patch: { ...(lines ? nextState(current, lines) : {}), totalAmount: financed, refund: amount },
      ...(lines ? { lines } : {}),
      extra,
      documents: added,
    };
  });
  return c.json(presentOrder(aggregate, presentContext(c)), 200);
});
