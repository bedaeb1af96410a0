import { createRoute, type z } from "@hono/zod-openapi";
import { formatDateTime } from "../../clock";
import { config } from "../../config";
import { database } from "../../db/client";
import { refunds } from "../../db/schema";
import { financedAmount } from "../../domain/order-lines";
import { bearerSecurity, jsonBodyOf, jsonContent, router, unprocessable, writeErrors } from "../../http/openapi";
import { newId } from "../../ids";
import { assertPermitted, operate } from "../applications/operate";
import { ApplicationIdParam } from "../applications/schema";
import { assertCurrency, refuse } from "./common";
import { Refund, RefundRequest } from "./schema";

const route = createRoute({
  method: "post",
  path: "/financing/v1/applications/{applicationId}/refunds",
  tags: ["Refunds"],
  summary: "Create a refund",
  description:
    "Refunds an arbitrary amount (goodwill, repeated partial refunds) without changing items or order state. Needs state READY. A refund above the order's `refundablePrice` is refused whole; concurrent refunds never exceed it together. Refusals (422): APPLICATION_NOT_READY, APPLICATION_REJECTED, APPLICATION_ALREADY_CANCELLED, REFUND_LIMIT_EXCEEDED.",
  security: bearerSecurity,
  request: { params: ApplicationIdParam, body: jsonBodyOf(RefundRequest) },
  responses: { 201: jsonContent(Refund, "The refund"), ...writeErrors, 422: unprocessable },
});

type RefundView = z.infer<typeof Refund>;

export function presentRefund(row: typeof refunds.$inferSelect, timeZone: string): RefundView {
  return {
    id: row.id,
    origin: row.origin as RefundView["origin"],
    totalPrice: { amount: row.amount, currency: row.currency },
    ...(row.reason ? { reason: row.reason } : {}),
    ...(row.variableSymbol ? { variableSymbol: row.variableSymbol } : {}),
    createdAt: formatDateTime(row.createdAt, timeZone),
  };
}

export const createRefund = router().openapi(route, async (c) => {
  const { totalPrice, reason, variableSymbol } = c.req.valid("json");
  const db = database(c.env);
  let refund: typeof refunds.$inferSelect | undefined;
  await operate(c, c.req.valid("param").applicationId, (current, at) => {
    assertPermitted("REFUND", current);
    assertCurrency(totalPrice, current, "totalPrice.currency");
    const refundable = financedAmount(current.lines) - current.application.refundedAmount;
    if (totalPrice.amount < 1 || totalPrice.amount > refundable) {
      refuse([
        {
          code: "REFUND_LIMIT_EXCEEDED",
          message: `a refund must be between 1 and the ${refundable} still refundable`,
          attribute: "totalPrice.amount",
        },
      ]);
    }
    refund = {
      id: newId(at),
      applicationId: current.application.id,
      origin: "REFUND",
      amount: totalPrice.amount,
      currency: current.application.currency,
      reason: reason ?? null,
      variableSymbol: variableSymbol ?? null,
      createdAt: at,
    };
    // The refund row rides on the version-checked update: a concurrent refund makes this round lose,
    // and the retry sees the new refunded total.
    return { patch: { refund: totalPrice.amount }, extra: [db.insert(refunds).values(refund)] };
  });
  return c.json(presentRefund(refund!, config(c.env).SERVICE_TIMEZONE), 201);
});
