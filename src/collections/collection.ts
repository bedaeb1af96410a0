/**
 * What a list offers (spec "Common query conventions for collections", CONTRACT 7): which attributes
 * sort, which filters exist and how they read values, and the shapes of a page request and a page.
 * One layer serves every list (applications, refunds, notifications):
 * - query.ts reads `limit`, `after`, `before`, `sort` and `filter` against a collection;
 * - filters.ts holds the kinds of filters (enum, text, integer, instant);
 * - keyset.ts runs the keyset query: never OFFSET, so a page costs the same however deep it is;
 * - links.ts writes `pagingInfo` with ready-made links to the neighbouring pages.
 *
 * Sortable columns must be NOT NULL (a NULL compares as neither greater nor smaller, so the seek would
 * lose rows) and plain text or integers; every sortable attribute wants an index (scope…, attribute, id).
 */
import type { SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/client";

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/**
 * Values across all filters of one request. D1 binds at most 100 parameters per statement: 30 values
 * (at most 2 parameters each: a date-time's range, a variable symbol with its term's partner) + the
 * widest seek (29) + scope and limit stay below it.
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
  /**
   * The condition looks the matching ids up in a key of their own (a handful of rows): the list should
   * start from them rather than walk the scope's index (see `applicationScope`).
   */
  readonly lookup?: boolean;
}

/** What a list offers. Names are the partner's; columns are how they are stored. */
/** A page's statement prepared once per shape, run with each request's values. */
export interface PreparedPage<Row> {
  execute(values?: Record<string, unknown>): Promise<Row[]>;
}

/** A page's statement: prepared (`keysetPage`), or read as SQL (tests read its plan). */
export interface PageQuery<Row> {
  toSQL(): { sql: string; params: unknown[] };
  prepare(): PreparedPage<Row>;
}

export interface Collection<TTable extends SQLiteTable = SQLiteTable, Row = TTable["$inferSelect"]> {
  table: TTable;
  /** The cursor attribute: unique and NOT NULL; always the last sort key. */
  id: SQLiteColumn;
  /** The id's property in a row as read. */
  idKey: string;
  sortable: Record<string, SQLiteColumn>;
  filterable: Record<string, Filterable>;
  /**
   * Reads a page with the keyset query's `where`, `orderBy` and `limit`, when the table's own columns
   * are not the whole item (an application comes with its lines and documents, in the same statement).
   */
  read?: (db: Database, where: SQL, orderBy: SQL[], limit: number, order: readonly OrderKey[]) => PageQuery<Row>;
  /** Items that can be large: a page holds what fits its budget (and `read` reads no more than that). */
  budget?: PageBudget<Row>;
}

/**
 * How much a page may hold, when its items vary in size by orders of magnitude (an application with its
 * lines): a page stops before the item that would pass `bytes` (its first item is always given), so
 * its answer stays under the ceiling however large the items (src/domain/application-size.ts).
 */
export interface PageBudget<Row> {
  bytes: number;
  bytesOf(row: Row): number;
}

/** What a page of the collection holds: what its `read` answers, else its table's rows. */
export type RowOf<C> = C extends { read: (...args: never[]) => PageQuery<infer Row> }
  ? Row
  : C extends { table: infer TTable extends SQLiteTable }
    ? TTable["$inferSelect"]
    : never;

/** A column of a page's order and its direction (the sort asked, then the id). */
export interface OrderKey {
  column: SQLiteColumn;
  descending: boolean;
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
  /** Set when the page's budget gave fewer items than asked although more follow: how many it gave. */
  limitedTo?: number;
}
