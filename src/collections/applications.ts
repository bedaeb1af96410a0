/**
 * What the applications list sorts and filters on (CONTRACT 7). Orders make sense only for dates,
 * amounts and order numbers (compared as text, the same order as `sort=orderNumber`); enums, e-mails
 * and variable symbols take `eq` and `in`. Every attribute has an index (partner_id, attribute, id),
 * except the variable symbols, found in a lookup table's key (partner, symbol).
 */
import { and, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { type ApplicationPageRow, applicationsPage } from "../db/applications";
import type { Database } from "../db/client";
import { applications, applicationVariableSymbols } from "../db/schema";
import { MAX_PAGE_CONTENT_BYTES } from "../domain/application-size";
import { APPLICATION_STATES, STATE_REASONS } from "../domain/application-state";
import { FINANCING_TYPES } from "../domain/financing-terms";
import { schema, z } from "../lazy-schema";
import {
  type Collection,
  EQUALITY_OPERATORS,
  type Filterable,
  OPERATORS,
  type OrderKey,
  type PageRequest,
  type Parsed,
} from "./collection";
import { columnFilter, enumFilter, instantFilter, integerValue, textValue } from "./filters";
import { PageQuery } from "./query";

const email = schema(() => z.email());

/** Stored lowercased at creation, so compared lowercased. */
const emailValue = (value: string): Parsed<string> =>
  email().safeParse(value).success
    ? { ok: true, value: value.toLowerCase() }
    : { ok: false, message: "must be an e-mail address" };

/** Digits only (as at creation): no separator or pattern character can reach the query. */
export const variableSymbolValue = (value: string): Parsed<string> =>
  /^[0-9]{1,10}$/.test(value) ? { ok: true, value } : { ok: false, message: "must be 1 to 10 digits" };

/**
 * A table's columns by bare name: the list's query is read through Drizzle's relational builder, which
 * qualifies every column with the outer list's alias, so a subquery names its own columns unqualified.
 */
export function names<T extends SQLiteTable>(table: T) {
  return Object.fromEntries(
    Object.entries(getTableColumns(table)).map(([key, column]) => [key, sql.identifier(column.name)]),
  ) as unknown as Record<keyof T["_"]["columns"], SQL>;
}

/**
 * `variableSymbol`: the partner's applications with any of the symbols, found in the key (partner,
 * symbol) of the lookup table the database keeps (src/db/schema.ts), not by scanning each application's
 * comma-joined list.
 */
export function variableSymbolFilter(partnerId: string): Filterable<string> {
  return {
    operators: EQUALITY_OPERATORS,
    parse: variableSymbolValue,
    lookup: true,
    where: (_operator, values) => sql`${applications.id} IN (${withVariableSymbol(partnerId, values)})`,
  };
}

/** The ids of the partner's applications that have any of the symbols, by the lookup table's key. */
export function withVariableSymbol(partnerId: string, symbols: string[]): SQL {
  const { partnerId: owner, applicationId, variableSymbol } = names(applicationVariableSymbols);
  const listed = sql.join(
    symbols.map((symbol) => sql`${symbol}`),
    sql`, `,
  );
  return sql`SELECT ${applicationId} FROM ${applicationVariableSymbols} WHERE ${owner} = ${partnerId} AND ${variableSymbol} IN (${listed})`;
}

/** The applications list's parts that are the same for every partner, built once per isolate. */
const sortable = {
  createdAt: applications.createdAt,
  updatedAt: applications.updatedAt,
  state: applications.state,
  type: applications.type,
  orderNumber: applications.orderNumber,
  totalPrice: applications.totalAmount,
  id: applications.id,
};
const filtersBefore = {
  state: enumFilter(applications.state, APPLICATION_STATES),
  stateReason: enumFilter(applications.stateReason, STATE_REASONS),
  type: enumFilter(applications.type, FINANCING_TYPES),
  orderNumber: columnFilter(applications.orderNumber, OPERATORS, textValue(100)),
};
const filtersAfter = {
  customerEmail: columnFilter(applications.customerEmail, EQUALITY_OPERATORS, emailValue),
  createdAt: instantFilter(applications.createdAt),
  updatedAt: instantFilter(applications.updatedAt),
  totalPrice: columnFilter(applications.totalAmount, OPERATORS, integerValue),
};

/**
 * A page holds at most a budget of content, so that its answer (each application with every line) stays
 * within MAX_ANSWER_BYTES: the budget is the most one application may hold, and the presentation adds
 * less than as much again (test/routes/applications/list.limits.test.ts measures the largest page).
 */
const budget = {
  bytes: MAX_PAGE_CONTENT_BYTES,
  bytesOf: (row: ApplicationPageRow) => row.contentBytes,
};

/** The page's statement, read only as far as the budget goes (one function, so that its shapes are prepared once). */
const readPage = (db: Database, where: SQL, orderBy: SQL[], limit: number, order: readonly OrderKey[]) =>
  applicationsPage(db, where, orderBy, limit, order, budget.bytes);

/**
 * The applications list of one partner: what it sorts on, and its filters, the variable symbols' bound
 * to the partner (in this order: a refusal of an unknown filter lists them so).
 */
export const applicationsOf = (partnerId: string) =>
  ({
    table: applications,
    id: applications.id,
    idKey: "id",
    read: readPage,
    budget,
    sortable,
    filterable: { ...filtersBefore, variableSymbol: variableSymbolFilter(partnerId), ...filtersAfter },
  }) satisfies Collection<typeof applications, ApplicationPageRow>;

/**
 * The partner's live applications: an archived one (src/db/archive.ts) is read by id only, as the
 * partner documentation says (docs/partner/archive.md). The list indexes hold live ones only (partial
 * on this very condition, src/db/schema.ts), so a page never reads past archived ones.
 */
const live = sql`${applications.archiveKey} IS NULL`;

export const partnerScope = (partnerId: string) => and(eq(applications.partnerId, partnerId), live)!;

/**
 * The partner's scope of a page. Where a term looks its ids up (a variable symbol, the console's
 * search), the unary `+` leaves SQLite those ids to start from: without statistics it takes a partner
 * for a handful of rows, so with the plain scope it walks the sort's index over all of the partner's
 * applications and tests each against the ids found; the few found are sorted instead.
 */
export function applicationScope(partnerId: string, collection: Collection, request: PageRequest): SQL {
  return request.filter.some((term) => collection.filterable[term.name]?.lookup)
    ? sql`+${applications.partnerId} = ${partnerId} and ${live}`
    : partnerScope(partnerId);
}

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
