/** Schemas of the order operations (spec "Cancel order items / Return / Send order items", CONTRACT 5). */

import { listOf } from "../../api";
import { REQUEST_RULES } from "../../api/request-rules";
import { MAX_REASON_LENGTH } from "../../domain/application-size";
import { DOCUMENT_TYPES } from "../../domain/documents";
import { schema, z } from "../../lazy-schema";
import { ITEM_TYPES, Money, OrderContent, VariableSymbol, Vat } from "../applications/schema";

/** File content: base64, line breaks allowed (a URL is not: files travel in the request). */
const base64Content = schema(() =>
  z.string().min(1).refine(REQUEST_RULES.isBase64Content, "must be base64 content (line breaks allowed)"),
);

const identifier = (max: number) => z.string().min(1).max(max);

/** Refers to items sent at creation: every identifier given must match exactly (spec rule 3). */
export const ItemSelector = schema(() =>
  z
    .object({
      code: identifier(200).optional(),
      ean: identifier(64).optional(),
      name: identifier(255).optional(),
      type: z.enum(ITEM_TYPES).optional(),
      quantity: z.number().int("must be an integer").min(1).max(1_000_000).optional().openapi({
        description: "Units to act on; omitted means every remaining unit of the matching items",
      }),
    })
    .refine(REQUEST_RULES.namesAnItem, {
      message: "give at least one of code, ean, name, type",
      params: { code: "REQUIRED" },
    })
    .openapi("ItemSelector"),
);

/** A calendar date `YYYY-MM-DD` that exists. */
export const CalendarDate = schema(() => z.iso.date("must be a date YYYY-MM-DD").openapi({ example: "2026-11-23" }));

const itemsSelection = schema(() =>
  listOf(ItemSelector(), 100, {
    length: 1,
    message: "omit items (or send an empty body) to act on the whole order",
  }).optional(),
);

/** The fields every item operation takes (a function: the schemas are built with the operation's). */
const operationFields = () => ({
  items: itemsSelection(),
  totalPrice: Money().optional().openapi({ description: "Informational for cancel, send and deliver" }),
  totalVat: listOf(Vat(), 20).optional(),
  variableSymbol: VariableSymbol().optional(),
});

export const CancelItemsRequest = schema(() => z.object(operationFields()).openapi("CancelItemsRequest"));

export const SendRequest = schema(() =>
  z
    .object({
      ...operationFields(),
      sentDate: CalendarDate().optional().openapi({ description: "Defaults to today in the service time zone" }),
      deliveryTrackingNumber: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .openapi({ description: "The parcel's: the first tracking entry of the shipment this creates" }),
      reference: z.string().min(1).max(255).optional().openapi({
        description:
          "Your own reference of the shipment this creates (an invoice or delivery note number): on the shipment and in the payout report",
      }),
      document: ReturnDocument().optional(),
    })
    .openapi("SendRequest"),
);

export const DeliverRequest = schema(() =>
  SendRequest()
    .extend({
      deliveryDate: CalendarDate().optional().openapi({ description: "Defaults to today in the service time zone" }),
    })
    .openapi("DeliverRequest"),
);

export const ReturnDocument = schema(() =>
  z
    .object({
      type: z.enum(DOCUMENT_TYPES),
      // Skip Pay's partners send the content alone, a string: read as `{content}`, its type taken from its
      // first bytes (PDF, PNG, JPEG, GIF) and named by the document type (docs/skippay-compatibility.md, P2).
      file: z.preprocess(
        REQUEST_RULES.fileOf,
        z
          .object({
            filename: z
              .string()
              .min(1)
              .max(255)
              // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
              .regex(/^[^/\\\u0000-\u001f]+$/, "must be a plain file name")
              .optional()
              .openapi({ description: "Required unless the content is a PDF, PNG, JPEG or GIF" }),
            content: base64Content().openapi({ description: "Base64 (line breaks allowed); at most 500 kB decoded" }),
          })
          .openapi({ description: "`{filename, content}`, or the base64 content alone as a string" }),
      ),
      description: z.string().max(1000).optional(),
      extraData: z.object({ variableSymbol: VariableSymbol().optional() }).optional(),
    })
    .openapi("ReturnDocument"),
);

export const ReturnRequest = schema(() =>
  z
    .object({
      items: listOf(ItemSelector(), 100).optional().openapi({
        description:
          "Omitted: return everything that went out. Empty with totalPrice: an amount-only refund, items unchanged.",
      }),
      totalPrice: Money().optional().openapi({ description: "Overrides the refunded amount; at least 1" }),
      totalVat: listOf(Vat(), 20).optional(),
      variableSymbol: VariableSymbol().optional(),
      document: ReturnDocument().optional(),
    })
    .refine(REQUEST_RULES.returnHasAmount, {
      path: ["totalPrice"],
      message: "an amount-only return (items: []) needs totalPrice",
      params: { code: "REQUIRED" },
    })
    .openapi("ReturnRequest"),
);

export const ChangeOrderRequest = schema(() =>
  z
    .object({
      reason: z.string().min(1).max(MAX_REASON_LENGTH).optional(),
      order: OrderContent(),
    })
    .openapi("ChangeOrderRequest"),
);

/**
 * The look-up of one order (CONTRACT 6c, Skip Pay's `GET /financing/v1/orders`): by its number, one of
 * its variable symbols or its application's id; what is given must all match.
 */
export const OrderLookupQuery = schema(() =>
  z
    .object({
      orderNumber: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .openapi({ description: "The order's number", example: "2026-000123" }),
      orderVariableSymbol: VariableSymbol().optional().openapi({ description: "One of the order's variable symbols" }),
      applicationId: z.string().min(1).max(64).optional().openapi({ description: "The application's id" }),
    })
    .openapi("OrderLookupQuery"),
);
