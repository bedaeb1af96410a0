/**
 * Cursor paging, sorting and filtering of collections (spec "Common query conventions for collections",
 * CONTRACT 7), one layer for every list: applications, refunds, notifications.
 *
 * 1. `parsePageRequest` checks `sort` and `filter` against a `Collection` (what may be sorted and
 *    filtered, and how), and `after` against `before`; anything else is a 400 naming the parameter.
 * 2. `keysetPage` finds the cursor item (scoped like the list) and runs one keyset query: ORDER BY the
 *    sort keys and finally the id, seeking past the cursor item's values, limit + 1 rows. Never OFFSET:
 *    a page costs the same however deep it is, and inserts between requests neither skip nor repeat items.
 * 3. `pagingInfo` turns the page into `{itemsPerPage, nextPage?, prevPage?}`.
 *
 * Sortable columns must be NOT NULL (a NULL compares as neither greater nor smaller, so the seek would
 * lose rows) and plain text or integers; every sortable attribute wants an index (scope…, attribute, id).
 */
import { z } from "@hono/zod-openapi";
import { and, asc, desc, eq, getTableColumns, gt, gte, inArray, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { ApiError, detail, type ErrorDetail } from "../http/errors";
import type { Database } from "./client";

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/**
 * Values across all filters of one request. D1 binds at most 100 parameters per statement: 30 values
 * (2 parameters each for date-times) + the widest seek (29) + scope and limit stay below it.
 */
export const MAX_FILTER_VALUES = 30;

export const OPERATORS = ["lt", "lteq", "eq", "gteq", "gt", "in"] as const;
export type Operator = (typeof OPERATORS)[number];
/** For attributes without a meaningful order (enums, e-mails, symbols). */
export const EQUALITY_OPERATORS: readonly Operator[] = ["eq", "in"];

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** A filter name: the operators it accepts, how one value is read, and the condition of one term. */
export interface Filterable<T = unknown> {
  readonly operators: readonly Operator[];
  /** One percent-decoded value → what is compared, or what the value must be. */
  parse(value: string): Parsed<T>;
  /** The condition of one term; `values` has one entry except for `in`. */
  where(operator: Operator, values: T[]): SQL;
}

/** What a list offers. Names are the partner's; columns are how they are stored. */
export interface Collection<TTable extends SQLiteTable = SQLiteTable> {
  table: TTable;
  /** The cursor attribute: unique and NOT NULL; always the last sort key. */
  id: SQLiteColumn;
  sortable: Record<string, SQLiteColumn>;
  filterable: Record<string, Filterable>;
}

export interface SortKey {
  name: string;
  column: SQLiteColumn;
  descending: boolean;
}

export interface FilterTerm {
  name: string;
  operator: Operator;
  /** Decoded values as sent, kept to write the same filter into nextPage/prevPage. */
  values: string[];
  condition: SQL;
}

export interface PageRequest {
  limit: number;
  after?: string;
  before?: string;
  sort: SortKey[];
  filter: FilterTerm[];
}

export interface Page<Row> {
  /** In the requested order, also when walking backwards. */
  rows: Row[];
  hasMoreAfter: boolean;
  hasMoreBefore: boolean;
  firstId?: string;
  lastId?: string;
}

// ---- Query parameters ------------------------------------------------------------------------

/** Hono hands a repeated query parameter over as an array. */
const once = () => z.string({ error: "must be given at most once" });

/**
 * The query parameters of a list. A list describes its `sort` and `filter` names with
 * `PageQuery.shape.sort.openapi({ description })`; they are read from the raw query (`parsePageRequest`).
 */
export const PageQuery = z.object({
  limit: z.coerce
    .number({ error: `must be an integer from 1 to ${MAX_LIMIT}` })
    .int(`must be an integer from 1 to ${MAX_LIMIT}`)
    .min(1, `must be an integer from 1 to ${MAX_LIMIT}`)
    .max(MAX_LIMIT, `must be an integer from 1 to ${MAX_LIMIT}`)
    .default(DEFAULT_LIMIT)
    .openapi({ description: `Items per page, 1 to ${MAX_LIMIT}`, example: DEFAULT_LIMIT }),
  after: once().min(1).max(64).optional().openapi({
    description:
      "Id of the last item of the page already read: answers the items after it. Must be an id this list served (else 400).",
  }),
  before: once().min(1).max(64).optional().openapi({
    description:
      "Id of the first item of the page already read: answers the items before it, in the same order. Not with `after`.",
  }),
  sort: once()
    .optional()
    .openapi({ description: "Comma-separated attributes, each ascending or, prefixed with `-`, descending" }),
  filter: once().optional().openapi({
    description: "`<name>|<operator>|<values>` terms joined by `;` (AND); values joined by `,`",
  }),
});

export const PagingInfo = z
  .object({
    itemsPerPage: z.number().int().openapi({ example: DEFAULT_LIMIT }),
    nextPage: z.string().optional().openapi({
      description: "Path with the full query of the next page; present when more items follow",
      example: "/financing/v1/applications?sort=-createdAt&limit=20&after=01JD3Z7Q9K4M2N8P5R6S7T8V9W",
    }),
    prevPage: z
      .string()
      .optional()
      .openapi({ description: "Path with the full query of the previous page; present when items precede" }),
  })
  .openapi("PagingInfo");

export const pageOf = <T extends z.ZodType>(item: T, name: string) =>
  z.object({ data: z.array(item), pagingInfo: PagingInfo }).openapi(name);

/** `+` is a space in a form-encoded query (URLSearchParams writes spaces so). */
const formDecode = (text: string) => decodeURIComponent(text.replace(/\+/g, " "));

/** The raw (still percent-encoded) values of each query parameter. */
function rawParameters(search: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const pair of search.replace(/^\?/, "").split("&")) {
    if (!pair) continue;
    const at = pair.indexOf("=");
    let name: string;
    try {
      name = formDecode(at < 0 ? pair : pair.slice(0, at));
    } catch {
      continue;
    }
    found.set(name, [...(found.get(name) ?? []), at < 0 ? "" : pair.slice(at + 1)]);
  }
  return found;
}

/**
 * Reads `sort` and `filter` from the raw query of `url` (they need their own decoding, see
 * `parseFilter`) and checks the cursor parameters; every problem is reported, not only the first.
 */
export function parsePageRequest(
  collection: Collection,
  url: string,
  params: { limit: number; after?: string | undefined; before?: string | undefined },
): PageRequest {
  const problems: ErrorDetail[] = [];
  const raw = rawParameters(new URL(url).search);
  const sort = parseSort(collection, single(raw, "sort", problems), problems);
  const filter = parseFilter(collection, single(raw, "filter", problems), problems);
  if (params.after !== undefined && params.before !== undefined) {
    problems.push(
      detail("INVALID_VALUE", "must not be combined with after: a page is read forward or backward", "before"),
    );
  }
  if (problems.length > 0) throw ApiError.badRequest(problems);
  return {
    limit: params.limit,
    ...(params.after !== undefined ? { after: params.after } : {}),
    ...(params.before !== undefined ? { before: params.before } : {}),
    sort,
    filter,
  };
}

function single(raw: Map<string, string[]>, name: string, problems: ErrorDetail[]): string | undefined {
  const values = raw.get(name);
  if (values && values.length > 1) problems.push(detail("INVALID_VALUE", "must be given at most once", name));
  return values?.[0];
}

function parseSort(collection: Collection, raw: string | undefined, problems: ErrorDetail[]): SortKey[] {
  if (raw === undefined) return [];
  const problem = (message: string) => problems.push(detail("INVALID_VALUE", message, "sort"));
  let text: string;
  try {
    // Attribute names hold no separators, so one decoding serves literal and encoded commas alike.
    text = formDecode(raw);
  } catch {
    problem("is not validly percent-encoded");
    return [];
  }
  const keys: SortKey[] = [];
  for (const item of text.split(",")) {
    const descending = item.startsWith("-");
    const name = descending ? item.slice(1) : item;
    const column = Object.hasOwn(collection.sortable, name) ? collection.sortable[name] : undefined;
    if (!name) problem(`"${text}" has an empty attribute name`);
    else if (!column) problem(`unknown attribute "${name}"; sortable: ${Object.keys(collection.sortable).join(", ")}`);
    else if (keys.some((k) => k.name === name)) problem(`"${name}" is given more than once`);
    else keys.push({ name, column, descending });
  }
  return keys;
}

/**
 * `<name>|<operator>|<values>` terms joined by `;`, values joined by `,`. A value may hold `|`, `,`,
 * `;` or `%` percent-encoded, so the text is split on the literal separators first and each piece
 * decoded after. Clients that encode the whole parameter (URLSearchParams, `curl --data-urlencode`)
 * turn every `|` into `%7C`: a value without a literal `|` is therefore decoded once before splitting,
 * and then a separator inside a value must have been encoded before that (`%252C` on the wire).
 */
function parseFilter(collection: Collection, raw: string | undefined, problems: ErrorDetail[]): FilterTerm[] {
  if (raw === undefined) return [];
  const problem = (message: string) => problems.push(detail("INVALID_VALUE", message, "filter"));
  const decode = (piece: string, what: string): string | undefined => {
    try {
      return decodeURIComponent(piece);
    } catch {
      problem(`${what} "${piece}" is not validly percent-encoded`);
      return undefined;
    }
  };
  let text = raw;
  if (!raw.includes("|")) {
    try {
      text = formDecode(raw);
    } catch {
      problem("is not validly percent-encoded");
      return [];
    }
  }
  const terms: FilterTerm[] = [];
  let valueCount = 0;
  const names = Object.keys(collection.filterable).join(", ");
  for (const termText of text.split(";")) {
    const parts = termText.split("|");
    if (parts.length !== 3) {
      problem(`"${termText}" must have the shape <name>|<operator>|<values>`);
      continue;
    }
    const name = decode(parts[0]!, "name");
    const operator = decode(parts[1]!, "operator");
    const values = parts[2]!.split(",").map((v) => decode(v, "value"));
    valueCount += values.length;
    if (name === undefined || operator === undefined || values.includes(undefined)) continue;
    const filterable = Object.hasOwn(collection.filterable, name) ? collection.filterable[name] : undefined;
    if (!filterable) {
      problem(`unknown filter name "${name}"; filterable: ${names}`);
      continue;
    }
    if (!(OPERATORS as readonly string[]).includes(operator)) {
      problem(`unknown operator "${operator}" in "${termText}"; operators: ${OPERATORS.join(", ")}`);
      continue;
    }
    const op = operator as Operator;
    if (!filterable.operators.includes(op)) {
      problem(`"${name}" does not support operator "${op}"; it supports ${filterable.operators.join(", ")}`);
      continue;
    }
    if (op !== "in" && values.length !== 1) {
      problem(`operator "${op}" in "${termText}" takes one value; "in" takes several`);
      continue;
    }
    const parsed: unknown[] = [];
    for (const value of values as string[]) {
      const result = filterable.parse(value);
      if (result.ok) parsed.push(result.value);
      else problem(`value "${value}" of "${name}" ${result.message}`);
    }
    if (parsed.length === values.length) {
      terms.push({ name, operator: op, values: values as string[], condition: filterable.where(op, parsed) });
    }
  }
  if (valueCount > MAX_FILTER_VALUES) problem(`holds ${valueCount} values; at most ${MAX_FILTER_VALUES} are allowed`);
  return terms;
}

// ---- Filter kinds ----------------------------------------------------------------------------

const comparisons = { lt, lteq: lte, eq, gteq: gte, gt } as const;

/** Compares the column with the value as it is: enums, text, integers. */
export function columnFilter<T>(
  column: SQLiteColumn,
  operators: readonly Operator[],
  parse: (value: string) => Parsed<T>,
): Filterable<T> {
  return {
    operators,
    parse,
    where: (operator, values) =>
      operator === "in" ? inArray(column, values) : comparisons[operator](column, values[0]),
  };
}

export const enumFilter = (column: SQLiteColumn, allowed: readonly string[]) =>
  columnFilter(column, EQUALITY_OPERATORS, (value) =>
    allowed.includes(value) ? { ok: true, value } : { ok: false, message: `must be one of ${allowed.join(", ")}` },
  );

export const integerValue = (value: string): Parsed<number> =>
  /^-?[0-9]{1,15}$/.test(value) ? { ok: true, value: Number(value) } : { ok: false, message: "must be an integer" };

export const textValue =
  (maxLength: number) =>
  (value: string): Parsed<string> =>
    value.length >= 1 && value.length <= maxLength
      ? { ok: true, value }
      : { ok: false, message: `must be 1 to ${maxLength} characters` };

const isoDateTime = z.iso.datetime({ offset: true, local: false });

/**
 * A Unix-millisecond column compared as the partner sees it: date-times are printed without
 * milliseconds, so `createdAt|eq|10:15:00` must match 10:15:00.700, and `gt` must not. Each operator
 * becomes a range on the stored milliseconds, so the index still serves it.
 */
export function instantFilter(column: SQLiteColumn): Filterable<number> {
  const second = 1000;
  // The first stored instant shown at or after t, and the first shown after t.
  const shownFrom = (t: number) => Math.ceil(t / second) * second;
  const shownAfter = (t: number) => Math.floor(t / second) * second + second;
  const equal = (t: number) => and(gte(column, shownFrom(t)), lt(column, shownAfter(t)))!;
  return {
    operators: OPERATORS,
    parse: (value) =>
      isoDateTime.safeParse(value).success
        ? { ok: true, value: Date.parse(value) }
        : { ok: false, message: "must be an ISO 8601 date-time with offset, e.g. 2026-11-22T10:15:00+01:00" },
    where: (operator, [t, ...more]) => {
      switch (operator) {
        case "lt":
          return lt(column, shownFrom(t!));
        case "lteq":
          return lt(column, shownAfter(t!));
        case "gt":
          return gte(column, shownAfter(t!));
        case "gteq":
          return gte(column, shownFrom(t!));
        case "eq":
          return equal(t!);
        case "in":
          return or(...[t!, ...more].map(equal))!;
      }
    },
  };
}

/**
 * A column holding a comma-joined list (no value contains a comma): `eq`/`in` match when any member
 * equals a value. `instr` on comma-fenced text has no wildcards, so no value can widen the match.
 */
export function listMemberFilter(column: SQLiteColumn, parse: (value: string) => Parsed<string>): Filterable<string> {
  const member = (value: string) => sql`instr(',' || ${column} || ',', ',' || ${value} || ',') > 0`;
  return {
    operators: EQUALITY_OPERATORS,
    parse,
    where: (_operator, values) => or(...values.map(member))!,
  };
}

// ---- The keyset query ------------------------------------------------------------------------

interface Key {
  column: SQLiteColumn;
  descending: boolean;
}

/**
 * ORDER BY keys: the requested attributes, then the id. The id takes the direction of the last
 * attribute (ascending with no sort): one (scope, attribute, id) index then delivers the whole order,
 * read forward or backward, where a mixed direction would need a sort step. Keys after an explicit
 * `id` are dropped: the id is unique, nothing after it can change the order.
 */
function orderKeys(collection: Collection, sort: readonly SortKey[]): Key[] {
  const keys: Key[] = [];
  for (const { column, descending } of sort) {
    keys.push({ column, descending });
    if (column === collection.id) return keys;
  }
  keys.push({ column: collection.id, descending: keys.at(-1)?.descending ?? false });
  return keys;
}

/** The keys in the direction of the walk: `before` reads backwards from the cursor. */
function walkKeys(collection: Collection, request: PageRequest): Key[] {
  const keys = orderKeys(collection, request.sort);
  return request.before === undefined ? keys : keys.map((k) => ({ ...k, descending: !k.descending }));
}

/** Rows strictly past `from` (the cursor's key values) in the direction of `keys`. */
function seek(keys: readonly Key[], from: readonly unknown[]): SQL {
  const past = (key: Key, value: unknown) => (key.descending ? lt(key.column, value) : gt(key.column, value));
  const first = keys[0]!;
  if (keys.length === 1) return past(first, from[0]);
  if (keys.every((k) => k.descending === first.descending)) {
    // A row value: SQLite seeks the index range (scope, attribute, id) from the cursor directly.
    const columns = sql.join(
      keys.map((k) => k.column),
      sql`, `,
    );
    const values = sql.join(
      keys.map((k, i) => sql.param(from[i], k.column)),
      sql`, `,
    );
    return first.descending ? sql`(${columns}) < (${values})` : sql`(${columns}) > (${values})`;
  }
  // Mixed directions: (k1 past v1) OR (k1 = v1 AND k2 past v2) OR …; the leading bound on k1 lets the
  // index range start at the cursor instead of at the beginning of the scope.
  const bound = first.descending ? lte(first.column, from[0]) : gte(first.column, from[0]);
  const alternatives = keys.map((key, i) =>
    and(...keys.slice(0, i).map((k, j) => eq(k.column, from[j])), past(key, from[i])),
  );
  return and(bound, or(...alternatives))!;
}

/**
 * The page query (limit + 1 rows, to know whether more follow), exposed so that tests can read its
 * plan. `from` holds the cursor item's values of the sort keys (see `cursorValues`).
 */
export function keysetQuery(
  db: Database,
  collection: Collection,
  scope: SQL,
  request: PageRequest,
  from?: readonly unknown[],
) {
  const keys = walkKeys(collection, request);
  const conditions = [scope, ...request.filter.map((t) => t.condition)];
  if (from) conditions.push(seek(keys, from));
  return db
    .select()
    .from(collection.table)
    .where(and(...conditions))
    .orderBy(...keys.map((k) => (k.descending ? desc(k.column) : asc(k.column))))
    .limit(request.limit + 1);
}

/**
 * The cursor item's values of the sort keys, looked up in the same scope as the list. An id that is
 * unknown or outside the scope is a 400: a cursor must be an id from a page we served, and answering
 * an empty page would hide the client's bug (or let it probe other partners' ids).
 */
export async function cursorValues(
  db: Database,
  collection: Collection,
  scope: SQL,
  request: PageRequest,
): Promise<unknown[] | undefined> {
  const id = request.after ?? request.before;
  if (id === undefined) return undefined;
  const keys = orderKeys(collection, request.sort);
  const row = await db
    .select(Object.fromEntries(keys.map((k, i) => [`k${i}`, k.column])))
    .from(collection.table)
    .where(and(eq(collection.id, id), scope))
    .get();
  if (!row) {
    const attribute = request.after !== undefined ? "after" : "before";
    throw ApiError.badRequest([
      detail("INVALID_VALUE", `"${id}" is not the id of an item of this list; use an id from a page served`, attribute),
    ]);
  }
  return keys.map((_, i) => (row as Record<string, unknown>)[`k${i}`]);
}

/** One page of `collection` within `scope` (e.g. the session's partner), as `request` asks. */
export async function keysetPage<TTable extends SQLiteTable>(
  db: Database,
  collection: Collection<TTable>,
  scope: SQL,
  request: PageRequest,
): Promise<Page<TTable["$inferSelect"]>> {
  const from = await cursorValues(db, collection, scope, request);
  const fetched = (await keysetQuery(db, collection, scope, request, from)) as TTable["$inferSelect"][];
  const more = fetched.length > request.limit;
  const rows = fetched.slice(0, request.limit);
  const backward = request.before !== undefined;
  if (backward) rows.reverse();
  const idKey = Object.entries(getTableColumns(collection.table)).find(([, c]) => c === collection.id)?.[0];
  if (idKey === undefined) throw new Error("collection id is not a column of its table");
  const idOf = (row: TTable["$inferSelect"] | undefined) =>
    row === undefined ? undefined : String((row as Record<string, unknown>)[idKey]);
  return {
    rows,
    // Walking backwards, the cursor item itself follows; walking forward from a cursor, it precedes.
    hasMoreAfter: backward || more,
    hasMoreBefore: backward ? more : request.after !== undefined,
    ...(rows.length > 0 ? { firstId: idOf(rows[0])!, lastId: idOf(rows.at(-1))! } : {}),
  };
}

// ---- Paging info -----------------------------------------------------------------------------

/** Inside a filter value, the separators and `%` must stay data when the text is decoded again. */
const escapeValue = (value: string) =>
  value.replace(/[%|,;]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);

/**
 * `{itemsPerPage, nextPage?, prevPage?}`: links carry the full query (sort, filter, limit) and the
 * cursor, so that a client requests them as they are. An empty page has no item to anchor a link on.
 */
export function pagingInfo(path: string, request: PageRequest, page: Page<unknown>): z.infer<typeof PagingInfo> {
  const link = (cursor: "after" | "before", id: string) => {
    const query = new URLSearchParams();
    if (request.sort.length > 0) {
      query.set("sort", request.sort.map((k) => `${k.descending ? "-" : ""}${k.name}`).join(","));
    }
    if (request.filter.length > 0) {
      query.set(
        "filter",
        request.filter.map((t) => `${t.name}|${t.operator}|${t.values.map(escapeValue).join(",")}`).join(";"),
      );
    }
    query.set("limit", String(request.limit));
    query.set(cursor, id);
    return `${path}?${query}`;
  };
  return {
    itemsPerPage: request.limit,
    ...(page.hasMoreAfter && page.lastId !== undefined ? { nextPage: link("after", page.lastId) } : {}),
    ...(page.hasMoreBefore && page.firstId !== undefined ? { prevPage: link("before", page.firstId) } : {}),
  };
}
