/**
 * The rules the request schemas check or apply beyond their shape, and how they read what partners send
 * (trimmed text, null for absent, a name for an object), as plain functions: zod runs them (the routes'
 * schemas refine and transform with them), and so do the validators the build compiles from those
 * schemas (build/request-compiler.ts calls each by its name here), so both apply the very same rule. A
 * function a schema uses that is not listed here makes the compiler leave that schema to zod.
 */

import { type CancelReason, DEFAULT_CANCEL_REASON } from "../domain/application-state";

// ISO 3166-1 alpha-2, officially assigned codes.
const COUNTRIES = new Set(
  (
    "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ " +
    "CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO " +
    "FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE " +
    "JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO " +
    "MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW " +
    "PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM " +
    "TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW"
  ).split(" "),
);

/** Standard base64, padded. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Whether a customer is named: a full name, or a first name with a last name. */
const hasCustomerName = (customer: { fullName?: string; firstName?: string; lastName?: string }) =>
  Boolean(customer.fullName || (customer.firstName && customer.lastName));

export const REQUEST_RULES = {
  /** Text as it is stored: without the blanks around it. */
  trimmed: (text: string) => text.trim(),
  hasCustomerName,
  isCountry: (code: string) => COUNTRIES.has(code),
  /** A value given as null reads as left out. */
  absentIfNull: <T>(value: T | null | undefined) => value ?? undefined,
  /** The carrier's name alone reads as `{carrierId}`. */
  carrierOf: (carrierId: string) => ({ carrierId }),
  /** A cancel without a reason (or with null) is for another reason. */
  cancelReasonOf: (reason: CancelReason | null | undefined) => reason ?? DEFAULT_CANCEL_REASON,
  /** An item selector names an item by at least one of code, ean, name, type (spec rule 3). */
  namesAnItem: (s: { code?: string; ean?: string; name?: string; type?: string }) =>
    s.code ?? s.ean ?? s.name ?? s.type,
  /** File content: base64, line breaks allowed. */
  isBase64Content: (content: string) => BASE64.test(content.replace(/[\r\n]/g, "")),
  /** A returned document's file given as its base64 content alone reads as `{content}`. */
  fileOf: (file: unknown) => (typeof file === "string" ? { content: file } : file),
  /** An amount-only return (no items) says its amount. */
  returnHasAmount: (r: { items?: unknown[]; totalPrice?: unknown }) => !(r.items?.length === 0 && !r.totalPrice),
  /** A replay's range ends after it starts, where it says its end. */
  endsAfterStart: (r: { from: string; to?: string }) => !(r.to !== undefined && Date.parse(r.to) <= Date.parse(r.from)),
};
