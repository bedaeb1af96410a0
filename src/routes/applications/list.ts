import { createRoute, z } from "@hono/zod-openapi";
import { asc, eq, inArray } from "drizzle-orm";
import { session } from "../../auth/require-session";
import type { Aggregate, StoredLine } from "../../db/applications";
import { type Database, database } from "../../db/client";
import {
  type Collection,
  columnFilter,
  EQUALITY_OPERATORS,
  enumFilter,
  instantFilter,
  integerValue,
  keysetPage,
  listMemberFilter,
  OPERATORS,
  PageQuery,
  type Parsed,
  pageOf,
  pagingInfo,
  parsePageRequest,
  textValue,
} from "../../db/paging";
import { type ApplicationRow, applications, documents, orderLines } from "../../db/schema";
import { APPLICATION_STATES, STATE_REASONS } from "../../domain/application-state";
import { bearerSecurity, commonErrors, jsonContent, router } from "../../http/openapi";
import { presentApplication, presentContext } from "./present";
import { Application, FINANCING_TYPES } from "./schema";

const email = z.email();

/** Stored lowercased at creation, so compared lowercased. */
const emailValue = (value: string): Parsed<string> =>
  email.safeParse(value).success
    ? { ok: true, value: value.toLowerCase() }
    : { ok: false, message: "must be an e-mail address" };

/** Digits only (as at creation): no separator or pattern character can reach the query. */
const variableSymbolValue = (value: string): Parsed<string> =>
  /^[0-9]{1,10}$/.test(value) ? { ok: true, value } : { ok: false, message: "must be 1 to 10 digits" };

/**
 * What the applications list sorts and filters on (CONTRACT 7). Orders make sense only for dates,
 * amounts and order numbers (compared as text, the same order as `sort=orderNumber`); enums, e-mails
 * and variable symbols take `eq` and `in`. Every attribute has an index (partner_id, attribute, id).
 */
export const applicationsCollection = {
  table: applications,
  id: applications.id,
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
    orderNumber: columnFilter(applications.orderNumber, OPERATORS, textValue(64)),
    variableSymbol: listMemberFilter(applications.variableSymbols, variableSymbolValue),
    customerEmail: columnFilter(applications.customerEmail, EQUALITY_OPERATORS, emailValue),
    createdAt: instantFilter(applications.createdAt),
    updatedAt: instantFilter(applications.updatedAt),
    totalPrice: columnFilter(applications.totalAmount, OPERATORS, integerValue),
  },
} satisfies Collection<typeof applications>;

export const partnerScope = (partnerId: string) => eq(applications.partnerId, partnerId);

const ListQuery = PageQuery.extend({
  sort: PageQuery.shape.sort.openapi({
    description:
      "Comma-separated attributes, `-` for descending: createdAt, updatedAt, state, type, orderNumber, totalPrice, id. Ties end in id order.",
    example: "-createdAt",
  }),
  filter: PageQuery.shape.filter.openapi({
    description:
      "`<name>|<operator>|<values>` terms joined by `;` (AND), values by `,` (percent-encode a separator inside a value). " +
      "eq, in: state, stateReason, type, variableSymbol (any of the order's symbols), customerEmail; " +
      "lt, lteq, eq, gteq, gt, in: orderNumber, totalPrice (minor units), createdAt, updatedAt (ISO 8601 with offset, to the second).",
    example: "state|in|READY,PROCESSING;createdAt|gteq|2026-11-01T00:00:00+01:00",
  }),
});

const route = createRoute({
  method: "get",
  path: "/financing/v1/applications",
  tags: ["Applications"],
  summary: "List applications",
  description:
    "The partner's applications, presented as by GET one, a page at a time: cursor paging with `after`/`before` (ids), `sort`, `filter`. `pagingInfo.nextPage`/`prevPage` are ready-made requests for the neighbouring pages.",
  security: bearerSecurity,
  request: { query: ListQuery },
  responses: { 200: jsonContent(pageOf(Application, "ApplicationPage"), "A page of applications"), ...commonErrors },
});

/**
 * Lines and documents of the page's applications: two queries in one round trip, not two per item.
 * A page holds at most 100 ids, which D1's limit of 100 bound parameters per statement admits.
 */
async function withLinesAndDocuments(db: Database, rows: ApplicationRow[]): Promise<Aggregate[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [lines, docs] = await db.batch([
    db
      .select()
      .from(orderLines)
      .where(inArray(orderLines.applicationId, ids))
      .orderBy(asc(orderLines.applicationId), asc(orderLines.position), asc(orderLines.id)),
    db
      .select({
        applicationId: documents.applicationId,
        id: documents.id,
        type: documents.type,
        filename: documents.filename,
        description: documents.description,
      })
      .from(documents)
      .where(inArray(documents.applicationId, ids))
      .orderBy(asc(documents.applicationId), asc(documents.id)),
  ]);
  const aggregates = new Map<string, Aggregate>(
    rows.map((row) => [row.id, { application: row as Aggregate["application"], lines: [], documents: [] }]),
  );
  for (const line of lines) aggregates.get(line.applicationId)?.lines.push(line as StoredLine);
  for (const { applicationId, ...doc } of docs) aggregates.get(applicationId)?.documents.push(doc);
  return [...aggregates.values()];
}

export const listApplications = router().openapi(route, async (c) => {
  const request = parsePageRequest(applicationsCollection, c.req.url, c.req.valid("query"));
  const db = database(c.env);
  const page = await keysetPage(db, applicationsCollection, partnerScope(session(c).partnerId), request);
  const ctx = presentContext(c);
  const data = await Promise.all((await withLinesAndDocuments(db, page.rows)).map((a) => presentApplication(a, ctx)));
  return c.json({ data, pagingInfo: pagingInfo(new URL(c.req.url).pathname, request, page) }, 200);
});
