/** Schemas of refunds (CONTRACT 5): created directly or by a return. */
import { MAX_REASON_LENGTH } from "../../domain/application-size";
import { schema, z } from "../../lazy-schema";
import { DateTimeOutput, Money, VariableSymbol } from "../applications/schema";

export const RefundRequest = schema(() =>
  z
    .object({
      totalPrice: Money(),
      reason: z.string().min(1).max(MAX_REASON_LENGTH).optional(),
      variableSymbol: VariableSymbol().optional(),
    })
    .openapi("RefundRequest"),
);

export const Refund = schema(() =>
  z
    .object({
      id: z.string(),
      origin: z.enum(["RETURN", "REFUND"]).openapi({ description: "RETURN when created by the return endpoint" }),
      totalPrice: Money(),
      reason: z.string().optional(),
      variableSymbol: z.string().optional(),
      createdAt: DateTimeOutput(),
    })
    .openapi("Refund"),
);
