/**
 * Schemas of the application resource: they validate requests, type the handlers and generate the
 * OpenAPI document. Unknown fields are dropped (forward compatible), never stored or echoed.
 */

import { listOf, withDefault } from "../../api";
import { REQUEST_RULES } from "../../api/request-rules";
import { MAX_REASON_LENGTH } from "../../domain/application-size";
import {
  APPLICATION_STATES,
  CANCEL_REASONS,
  DEFAULT_CANCEL_REASON,
  LINE_STATES,
  STATE_REASONS,
} from "../../domain/application-state";
import { DOCUMENT_TYPES } from "../../domain/documents";
import { FINANCING_TYPES } from "../../domain/financing-terms";
import { type Infer, schema, z } from "../../lazy-schema";

export const ITEM_TYPES = [
  "PHYSICAL",
  "DIGITAL",
  "DISCOUNT",
  "SHIPPING_FEE",
  "SALES_TAX",
  "GIFT_CARD",
  "STORE_CREDIT",
  "FEE",
  "INSURANCE",
] as const;
export const ADDRESS_TYPES = ["BILLING", "DELIVERY", "PERMANENT", "CONTACT"] as const;
export const CHANNELS = ["ESHOP", "MOBILE_APP", "POS"] as const;

/** Amounts beyond ±10^12 minor units are refused so that sums stay exact far inside 2^53. */
const MAX_AMOUNT = 1_000_000_000_000;
const amount = schema(() => z.number().int("must be an integer").min(-MAX_AMOUNT).max(MAX_AMOUNT));
const currency = schema(() => z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code of three capital letters"));
const text = (max: number) => z.string().overwrite(REQUEST_RULES.trimmed).min(1, "must not be empty").max(max);

/** A payment reference: digits only, so no separator can be ambiguous in the stored list or a filter. */
export const VariableSymbol = schema(() => z.string().regex(/^[0-9]{1,10}$/, "must be 1 to 10 digits"));

export const Money = schema(() =>
  z
    .object({ amount: amount().openapi({ example: 12590 }), currency: currency().openapi({ example: "CZK" }) })
    .openapi("Money", { description: "Integer amount in minor units of the ISO 4217 currency" }),
);

export const Vat = schema(() =>
  z
    .object({
      vatRate: z.number().min(0).max(100).openapi({ example: 21 }),
      amount: amount(),
      currency: currency(),
    })
    .openapi("Vat"),
);

/** Date-time input: any ISO 8601 date-time with an offset, any number of fraction digits. */
export const DateTimeInput = schema(() =>
  z.iso
    .datetime({ offset: true, local: false, message: "must be an ISO 8601 date-time with offset" })
    .openapi({ example: "2026-11-22T10:15:00+01:00" }),
);

const FraudPreventionData = schema(() =>
  z
    .object({
      transactionsNumber: z.number().int().min(0).optional(),
      cashlessTransactionsNumber: z.number().int().min(0).optional(),
      transactionsSum: Money().optional(),
      cashlessTransactionsSum: Money().optional(),
    })
    .openapi("FraudPreventionData"),
);

export const Customer = schema(() =>
  z
    .object({
      fullName: text(240).optional(),
      firstName: text(100).optional(),
      lastName: text(100).optional(),
      email: z.email("must be an e-mail address").max(254).openapi({ example: "jana.novakova@example.com" }),
      phone: z
        .string()
        .regex(/^\+[0-9]{7,15}$/, "must be + and 7 to 15 digits")
        .openapi({ example: "+420777123456" }),
      fraudPreventionData: FraudPreventionData().optional(),
    })
    .refine(REQUEST_RULES.hasCustomerName, {
      path: ["fullName"],
      message: "is required (or firstName with lastName)",
      params: { code: "REQUIRED" },
    })
    .openapi("Customer"),
);

export const Address = schema(() =>
  z
    .object({
      name: text(200).optional(),
      city: text(100).optional(),
      country: z.string().refine(REQUEST_RULES.isCountry, "must be an ISO 3166 alpha-2 country code").optional(),
      streetAddress: text(200).optional(),
      streetNumber: text(100).optional(),
      zip: text(30).optional(),
      addressType: z.enum(ADDRESS_TYPES).optional(),
    })
    .openapi("Address"),
);

export const ItemInput = schema(() =>
  z
    .object({
      code: text(200),
      ean: text(64).optional(),
      name: text(255),
      type: withDefault(z.enum(ITEM_TYPES), "PHYSICAL"),
      variant: text(255).optional(),
      producer: text(255).optional(),
      categories: listOf(text(255), 20).optional(),
      quantity: withDefault(z.number().int("must be an integer").min(1).max(1_000_000), 1),
      unitPrice: Money().optional(),
      totalPrice: Money(),
      unitVat: Vat().optional(),
      totalVat: Vat(),
      productUrl: z.url().max(2048).optional(),
    })
    .openapi("OrderItemInput"),
);

const MAX_ITEMS = 100;

export const OrderContent = schema(() =>
  z.object({
    totalPrice: Money(),
    totalVat: listOf(Vat(), 20, { length: 1 }),
    items: listOf(ItemInput(), MAX_ITEMS, { length: 1, message: "at least one item is required" }),
  }),
);

/**
 * The carrier as the specification gives it, `{carrierId}`, or as Skip Pay's partners send it, the
 * carrier's name alone (docs/skippay-compatibility.md, P1); kept and answered as `{carrierId}`.
 */
const DeliveryCarrierInput = schema(() =>
  z
    .union([z.object({ carrierId: text(250) }), text(250).transform(REQUEST_RULES.carrierOf)])
    .openapi({ description: "`{carrierId}`, or the carrier's name as a string (read as `{carrierId}`)" }),
);

export const OrderInput = schema(() =>
  OrderContent()
    .extend({
      number: text(100).openapi({ example: "2026-000123" }),
      reservationDate: DateTimeInput().nullish().transform(REQUEST_RULES.absentIfNull),
      addresses: listOf(Address(), 10).optional(),
      variableSymbols: withDefault(listOf(VariableSymbol(), 10), []),
      deliveryCarrier: DeliveryCarrierInput().nullish().transform(REQUEST_RULES.absentIfNull),
      channel: z.enum(CHANNELS).optional(),
    })
    .openapi("OrderInput"),
);

const httpUrl = schema(() => z.url({ protocol: /^https?$/, message: "must be an absolute http(s) URL" }).max(2048));

export const MerchantUrls = schema(() =>
  z
    .object({ approvedRedirect: httpUrl(), rejectedRedirect: httpUrl(), notificationEndpoint: httpUrl() })
    .openapi("MerchantUrls"),
);

export const CreateApplicationRequest = schema(() =>
  z
    .object({
      type: z.enum(FINANCING_TYPES),
      agreementTermsAndConditions: withDefault(
        z.boolean(),
        false,
        "The customer agreed to the terms (else they tick it at the gateway)",
      ),
      customer: Customer(),
      order: OrderInput(),
      merchantUrls: MerchantUrls(),
    })
    .openapi("CreateApplicationRequest"),
);

export type CreateApplicationInput = Infer<typeof CreateApplicationRequest>;
export type CustomerInput = Infer<typeof Customer>;
export type OrderItemInput = Infer<typeof ItemInput>;

export const CancelApplicationRequest = schema(() =>
  z
    .object({
      // null reads as absent: Skip Pay's partners send null for "no reason given".
      reason: z
        .enum(CANCEL_REASONS)
        .nullish()
        .transform(REQUEST_RULES.cancelReasonOf)
        .openapi({ description: `Default ${DEFAULT_CANCEL_REASON}` }),
      customReason: text(MAX_REASON_LENGTH).nullish().transform(REQUEST_RULES.absentIfNull),
    })
    .openapi("CancelApplicationRequest"),
);

export const ApplicationIdParam = schema(() =>
  z.object({
    applicationId: z
      .string()
      .max(64)
      .openapi({ param: { name: "applicationId", in: "path" }, example: "01JD3Z7Q9K4M2N8P5R6S7T8V9W" }),
  }),
);

// ---- Responses -------------------------------------------------------------------------------

/** A date-time as the service writes it: `YYYY-MM-DDThh:mm:ss±hh:mm` in the service time zone. */
export const DateTimeOutput = schema(() =>
  z.string().openapi({ format: "date-time", example: "2026-11-23T10:15:00+00:00" }),
);
export const DateOutput = schema(() => z.string().openapi({ format: "date", example: "2026-11-23" }));

export const OrderItem = schema(() =>
  z
    .object({
      code: z.string(),
      ean: z.string().optional(),
      name: z.string(),
      type: z.enum(ITEM_TYPES),
      variant: z.string().optional(),
      producer: z.string().optional(),
      categories: z.array(z.string()).optional(),
      quantity: z.number().int(),
      unitPrice: Money().optional(),
      totalPrice: Money(),
      unitVat: Vat().optional(),
      totalVat: Vat(),
      productUrl: z.url().optional(),
      state: z.enum(LINE_STATES),
      sentDate: DateOutput().optional(),
      deliveryDate: DateOutput().optional(),
      deliveryTrackingNumber: z.string().optional(),
    })
    .openapi("OrderItem"),
);

export const Document = schema(() =>
  z
    .object({
      id: z.string(),
      type: z.enum(DOCUMENT_TYPES),
      filename: z.string(),
      url: z.url().openapi({ description: "Where the owner downloads it (GET, with the bearer token)" }),
      description: z.string().optional(),
    })
    .openapi("Document"),
);

export const Order = schema(() =>
  z
    .object({
      number: z.string(),
      reservationDate: DateTimeOutput().optional(),
      state: z.enum(LINE_STATES),
      totalPrice: Money().openapi({ description: "Financed total: the items that are not cancelled" }),
      totalVat: z.array(Vat()),
      refundedPrice: Money(),
      refundablePrice: Money(),
      items: z.array(OrderItem()),
      addresses: z.array(Address()).optional(),
      variableSymbols: z.array(z.string()),
      deliveryCarrier: z.object({ carrierId: z.string() }).optional(),
      channel: z.enum(CHANNELS).optional(),
      documents: z.array(Document()),
    })
    .openapi("Order"),
);

export const ApplicationInfo = schema(() =>
  z
    .object({ id: z.string(), state: z.enum(APPLICATION_STATES), stateReason: z.enum(STATE_REASONS) })
    .openapi("ApplicationInfo"),
);

export const OrderWithApplication = schema(() =>
  Order().extend({ applicationInfo: ApplicationInfo() }).openapi("OrderResponse"),
);

export const Application = schema(() =>
  z
    .object({
      id: z.string(),
      type: z.enum(FINANCING_TYPES),
      state: z.enum(APPLICATION_STATES),
      stateReason: z.enum(STATE_REASONS),
      agreementTermsAndConditions: z.boolean(),
      customer: Customer(),
      order: Order(),
      merchantUrls: MerchantUrls(),
      gatewayRedirectUrl: z.url(),
      cancellation: z.object({ reason: z.enum(CANCEL_REASONS), customReason: z.string().optional() }).optional(),
      expiresAt: DateTimeOutput().optional().openapi({
        description:
          "The deadline that applies now, when one does: the customer's to decide at the gateway (PROCESSING_REDIRECT_NEEDED), or the authorization of goods not yet sent (READY). When it passes, what it waits for lapses (CANCELLED_EXPIRED, or the goods not yet sent cancelled).",
      }),
      createdAt: DateTimeOutput(),
      updatedAt: DateTimeOutput(),
    })
    .openapi("Application"),
);
