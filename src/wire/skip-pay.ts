/**
 * Skip Pay's wire (CONTRACT 6c): the shapes of Skip Pay's published `api/openapi.yaml`
 * (skip-pay/skippay-payments-java-sdk; a copy is the tests' oracle, test/skippay/). The Java SDK generated
 * from it refuses a body with a field its schema does not define, without a field it requires, with a
 * value outside an enum, or with JSON null for a required string. So every answer here is built field by
 * field from ours (never spread: a field we add must not reach them), fills what theirs requires (null
 * where their SDK takes it, "" where it does not), and writes their names and enums. Their requests are
 * read into ours first (./skip-pay-requests.ts).
 */
import type { components } from "../../generated/api";
import type { StateReason } from "../domain/application-state";
import type { OurError, OurNotification, Wire } from ".";
import { readSkipPayRequest } from "./skip-pay-requests";

type Ours = components["schemas"];

// ---- Enumerations ------------------------------------------------------------------------------

type TheirStateReason =
  | "PROCESSING_REDIRECT_NEEDED"
  | "PROCESSING_PREAPPROVED"
  | "PROCESSING_VALIDATION_IN_PROGRESS"
  | "REJECTED"
  | "CANCELLED_NOT_PAID"
  | "READY_TO_SHIP"
  | "READY_SHIPPED"
  | "READY_DELIVERED"
  | "READY_PAID"
  | "CANCELLED_RETURNED";

/**
 * Our state reasons that theirs lacks, as the nearest of theirs: an expiry cancelled the application
 * before anything was paid; a manual review is their asynchronous validation.
 */
const NEAREST = {
  CANCELLED_EXPIRED: "CANCELLED_NOT_PAID",
  PROCESSING_MANUAL_REVIEW: "PROCESSING_VALIDATION_IN_PROGRESS",
} as const satisfies Partial<Record<StateReason, TheirStateReason>>;

/** Every other reason of ours is one of theirs: a reason we add that they lack fails to compile here. */
const unchanged = (reason: Exclude<StateReason, keyof typeof NEAREST>): TheirStateReason => reason;

export const stateReason = (reason: StateReason): TheirStateReason =>
  reason in NEAREST
    ? NEAREST[reason as keyof typeof NEAREST]
    : unchanged(reason as Exclude<StateReason, keyof typeof NEAREST>);

/** `DeliveryCarrierDefault`: the carriers their SDK knows (its installable build refuses any other string). */
const CARRIERS = new Set([
  "CZ_POST_HAND",
  "CZ_POST_OFFICE",
  "CZ_POST_OTHER",
  "PPL",
  "DPD",
  "GEIS",
  "IN_TIME",
  "TOP_TRANS",
  "GEBRUDER_WEISS",
  "LOCAL_COURIER",
  "TNT",
  "GLS",
  "HDS_COMFORT",
  "HDS_STANDARD",
  "MALL_DEPOSIT",
]);

// ---- Answers -------------------------------------------------------------------------------------

/** The fields of `value` named, those it has (absent optional fields stay absent). */
function pick<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const key of keys) if (value[key] !== undefined) picked[key] = value[key];
  return picked;
}

const money = (m: Ours["Money"]) => ({ amount: m.amount, currency: m.currency });
const vat = (v: Ours["Vat"]) => ({ amount: v.amount, currency: v.currency, vatRate: v.vatRate });
/** A unit's share of a line's amount, in whole minor units (half away from zero), as their amounts are. */
const perUnit = (amount: number, quantity: number) => Math.sign(amount) * Math.round(Math.abs(amount) / quantity);

function item(line: Ours["OrderItem"]) {
  return {
    ...pick(line, [
      "code",
      "ean",
      "name",
      "type",
      "variant",
      "producer",
      "categories",
      "productUrl",
      "quantity",
      "state",
    ]),
    totalPrice: money(line.totalPrice),
    totalVat: vat(line.totalVat),
    // Required by theirs: ours gives them only where the partner did.
    unitPrice: line.unitPrice
      ? money(line.unitPrice)
      : { amount: perUnit(line.totalPrice.amount, line.quantity), currency: line.totalPrice.currency },
    unitVat: vat(line.unitVat ?? { ...line.totalVat, amount: perUnit(line.totalVat.amount, line.quantity) }),
    sentDate: line.sentDate ?? null,
    deliveryDate: line.deliveryDate ?? null,
    // Nullable in their document, but their SDK refuses null for a required string.
    deliveryTrackingNumber: line.deliveryTrackingNumber ?? "",
  };
}

/** Their five required address fields; an address without `addressType` (no value of theirs fits) is left out. */
function addresses(ours: readonly Ours["Address"][] | undefined) {
  return (ours ?? []).flatMap((a) =>
    a.addressType
      ? [
          {
            ...pick(a, ["name", "streetNumber"]),
            addressType: a.addressType,
            city: a.city ?? "",
            country: a.country ?? "",
            streetAddress: a.streetAddress ?? "",
            zip: a.zip ?? "",
          },
        ]
      : [],
  );
}

/**
 * What every line still in the order (not cancelled) has alike: the order went out at once. Their order
 * carries the date and tracking number of a shipment of the whole order, the lines those of a partial one.
 */
function commonOf(lines: readonly Ours["OrderItem"][], field: "sentDate" | "deliveryDate" | "deliveryTrackingNumber") {
  const active = lines.filter((l) => l.state !== "CANCELLED");
  const values = new Set(active.map((l) => l[field]));
  const [value] = values;
  return values.size === 1 ? value : undefined;
}

/** Their `OrderResponse`: the order of an application. */
function order(ours: Ours["Order"]) {
  const kept = addresses(ours.addresses);
  const carrier = ours.deliveryCarrier?.carrierId;
  return {
    ...pick(ours, ["number", "variableSymbols", "reservationDate", "state"]),
    totalPrice: money(ours.totalPrice),
    totalVat: ours.totalVat.map(vat),
    ...(kept.length > 0 ? { addresses: kept } : {}),
    // Only a carrier of their list: their SDK reads the field as that enum.
    ...(carrier !== undefined && CARRIERS.has(carrier) ? { deliveryCarrier: carrier } : {}),
    sentDate: commonOf(ours.items, "sentDate") ?? null,
    deliveryDate: commonOf(ours.items, "deliveryDate") ?? null,
    deliveryTrackingNumber: commonOf(ours.items, "deliveryTrackingNumber") ?? "",
    documents: ours.documents.map((d) => ({
      type: d.type,
      file: { filename: d.filename, url: d.url },
      ...pick(d, ["description"]),
    })),
    items: ours.items.map(item),
    // One login is one shop here: there is no merchant id to give, and their SDK refuses null.
    merchantId: "",
  };
}

const applicationInfo = (a: Ours["ApplicationInfo"]) => ({
  id: a.id,
  state: a.state,
  stateReason: stateReason(a.stateReason),
});

/** Their `OrderExtendedResponse`: the order with its application's state. */
const orderExtended = (ours: Ours["OrderResponse"]) => ({
  ...order(ours),
  applicationInfo: applicationInfo(ours.applicationInfo),
});

/** Their `CustomerExtraData` of the fraud prevention data we keep (their counts are at least 1). */
function extraData(ours: Ours["FraudPreventionData"] | undefined) {
  if (!ours) return undefined;
  const extra = {
    ...(ours.transactionsNumber ? { transactionsNumber: ours.transactionsNumber } : {}),
    ...(ours.cashlessTransactionsNumber ? { cashlessTransactionsNumber: ours.cashlessTransactionsNumber } : {}),
    ...(ours.transactionsSum ? { transactionsSum: money(ours.transactionsSum) } : {}),
    ...(ours.cashlessTransactionsSum ? { cashlessTransactionsSum: money(ours.cashlessTransactionsSum) } : {}),
  };
  return Object.keys(extra).length > 0 ? extra : undefined;
}

/** Their `CustomerResponse`: every name required (a name we were not given is ""; none is invented by splitting). */
function customer(ours: Ours["Customer"]) {
  const firstName = ours.firstName ?? "";
  const lastName = ours.lastName ?? "";
  const extra = extraData(ours.fraudPreventionData);
  return {
    email: ours.email,
    phone: ours.phone,
    firstName,
    lastName,
    fullName: ours.fullName ?? `${firstName} ${lastName}`.trim(),
    ...(extra ? { extraData: extra } : {}),
  };
}

/** Their `ApplicationResponse`. */
const application = (ours: Ours["Application"]) => ({
  ...applicationInfo(ours),
  type: ours.type,
  agreementTermsAndConditions: ours.agreementTermsAndConditions,
  customer: customer(ours.customer),
  order: order(ours.order),
  gatewayRedirectUrl: ours.gatewayRedirectUrl,
});

/** Their change order answers the order (`OrderExtendedResponse`), ours the application holding it. */
const changedOrder = (ours: Ours["Application"]) => ({ ...order(ours.order), applicationInfo: applicationInfo(ours) });

/** Why our decision would refuse, as their result codes. */
const PRECHECK_CODES: Record<string, string> = {
  AMOUNT_OVER_LIMIT: "INSUFFICIENT_LIMIT",
  NO_LIMIT_FOR_CURRENCY: "NOT_AVAILABLE",
};

/**
 * Their `PrecheckResultsResponse`: our rules decide, they do not estimate, so a recommendation is certain
 * (probability 1 or 0). Nothing is stored: the id names the request, for support.
 */
const precheckResults = (ours: Ours["PrecheckResult"], requestId: string) => ({
  id: requestId,
  results: ours.offers.map((offer) => ({
    type: offer.type,
    recommendation: offer.eligible,
    probabilityOfApproval: offer.eligible ? 1 : 0,
    code: offer.eligible ? "OK" : (PRECHECK_CODES[offer.reasons?.[0] ?? ""] ?? "UNKNOWN"),
    // We do not classify customers.
    PrecheckResultResponseSerializer: "UNKNOWN",
    ...(offer.reasons?.length ? { message: offer.reasons.join(", ") } : {}),
  })),
});

/** A payment (a paid payout's share of one application), as the payments operation answers it (CONTRACT 6b). */
export interface OurPayment {
  paymentId: string;
  /** A date, or a date-time whose date part is the day it was paid (in the service's time zone). */
  date: string;
  applicationId: string;
  value: Ours["Money"];
}

/**
 * Their `Getpaymentsonspecificapplicationresponse`, ready for `GET …/applications/{id}/payments` once it
 * exists (its operation joins ANSWERS then): `date` is a date, as their SDK reads it.
 */
export const payments = (ours: { data: readonly OurPayment[]; pagingInfo?: Ours["PagingInfo"] }) => ({
  data: ours.data.map((p) => ({
    paymentId: p.paymentId,
    date: p.date.slice(0, 10),
    applicationId: p.applicationId,
    value: money(p.value),
  })),
  ...(ours.pagingInfo ? { pagingInfo: pick(ours.pagingInfo, ["itemsPerPage", "nextPage", "prevPage"]) } : {}),
});

/** Their health answer names the version of the API answering (their SDK refuses null there). */
const health = () => ({ projectVersion: "financing-partner-api v1" });

/**
 * Each operation of theirs whose answer differs from ours, by our operation id. Login answers alike; the
 * operations they do not have (lists, refunds, notifications) answer as ours: their clients cannot call them.
 */
const ANSWERS: Partial<Record<string, (body: never, requestId: string) => unknown>> = {
  createApplication: application,
  getApplication: application,
  cancelApplication: application,
  changeOrder: changedOrder,
  cancelItems: orderExtended,
  sendItems: orderExtended,
  deliverItems: orderExtended,
  returnItems: orderExtended,
  getOrder: orderExtended,
  listPayments: payments,
  precheck: precheckResults,
  getHealth: health,
};

// ---- Errors and notifications -------------------------------------------------------------------

/**
 * Their `ErrorsResponse`: our entries as they are, each with the request id as their `ticketId` ("used
 * for error backtracking"); where we list none (401, 403, 404, 413, 415, 429, 5xx), one entry saying it.
 */
function errors(ours: OurError) {
  // An unknown application is worded so by ApiError.notFound("application"); their get answers it apart.
  const code =
    ours.error === "not_found"
      ? ours.error_description === "application not found"
        ? "APPLICATION_NOT_FOUND"
        : "OBJECT_NOT_FOUND"
      : ours.error.toUpperCase();
  const entries = ours.errors ?? [{ code, message: ours.error_description, severity: "ERROR" }];
  return {
    errors: entries.map((e) => ({
      ...pick(e, ["code", "message", "severity", "attribute"]),
      ticketId: ours.requestId,
    })),
  };
}

/** Their notification is an `ApplicationBaseResponse`; the event's id stays in the `webhook-id` header. */
const notification = (ours: OurNotification) => applicationInfo(ours as unknown as Ours["ApplicationInfo"]);

export const skipPay: Wire = {
  request: readSkipPayRequest,
  answer(operationId, body, requestId) {
    const present = ANSWERS[operationId];
    return present ? present(body as never, requestId) : body;
  },
  error: errors,
  notification,
};
