/**
 * What the applications list sorts and filters on (CONTRACT 7). Orders make sense only for dates,
 * amounts and order numbers (compared as text, the same order as `sort=orderNumber`); enums, e-mails
 * and variable symbols take `eq` and `in`. Every attribute has an index (partner_id, attribute, id).
 */
import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { type ApplicationPageRow, applicationsPage } from "../db/applications";
import { applications } from "../db/schema";
import { APPLICATION_STATES, STATE_REASONS } from "../domain/application-state";
import { FINANCING_TYPES } from "../domain/financing-terms";
import { schema } from "../lazy-schema";
import { type Collection, EQUALITY_OPERATORS, OPERATORS, type Parsed } from "./collection";
import { columnFilter, enumFilter, instantFilter, integerValue, listMemberFilter, textValue } from "./filters";
import { PageQuery } from "./query";

const email = schema(() => z.email());

/** Stored lowercased at creation, so compared lowercased. */
const emailValue = (value: string): Parsed<string> =>
  email().safeParse(value).success
    ? { ok: true, value: value.toLowerCase() }
    : { ok: false, message: "must be an e-mail address" };

/** Digits only (as at creation): no separator or pattern character can reach the query. */
const variableSymbolValue = (value: string): Parsed<string> =>
  /^[0-9]{1,10}$/.test(value) ? { ok: true, value } : { ok: false, message: "must be 1 to 10 digits" };

export const applicationsCollection = {
  table: applications,
  id: applications.id,
  idKey: "id",
  read: applicationsPage,
  sortable: {
    createdAt: applications.createdAt,
    updatedAt: applications.updatedAt,
    state: applications.state,
    type: applications.type,
    orderNumber: applications.orderNumber,
    totalPrice: applications.totalAmount,
    id: applications.id,
  },
  filterable: {
    state: enumFilter(applications.state, APPLICATION_STATES),
    stateReason: enumFilter(applications.stateReason, STATE_REASONS),
    type: enumFilter(applications.type, FINANCING_TYPES),
    orderNumber: columnFilter(applications.orderNumber, OPERATORS, textValue(100)),
    variableSymbol: listMemberFilter(applications.variableSymbols, variableSymbolValue),
    customerEmail: columnFilter(applications.customerEmail, EQUALITY_OPERATORS, emailValue),
    createdAt: instantFilter(applications.createdAt),
    updatedAt: instantFilter(applications.updatedAt),
    totalPrice: columnFilter(applications.totalAmount, OPERATORS, integerValue),
  },
} satisfies Collection<typeof applications, ApplicationPageRow>;

export const partnerScope = (partnerId: string) => eq(applications.partnerId, partnerId);

export const ApplicationsQuery = schema(() =>
  PageQuery().extend({
    sort: PageQuery().shape.sort.openapi({
      description:
        "Comma-separated attributes, `-` for descending: createdAt, updatedAt, state, type, orderNumber, totalPrice, id. Ties end in id order.",
      example: "-createdAt",
    }),
    filter: PageQuery().shape.filter.openapi({
      description:
        "`<name>|<operator>|<values>` terms joined by `;` (AND), values by `,` (percent-encode a separator inside a value). " +
        "eq, in: state, stateReason, type, variableSymbol (any of the order's symbols), customerEmail; " +
        "lt, lteq, eq, gteq, gt, in: orderNumber, totalPrice (minor units), createdAt, updatedAt (ISO 8601 with offset, to the second).",
      example: "state|in|READY,PROCESSING;createdAt|gteq|2026-11-01T00:00:00+01:00",
    }),
  }),
);
