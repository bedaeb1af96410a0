/**
 * The keyset query: ORDER BY the sort keys and finally the id, seeking past the cursor item's values,
 * limit + 1 rows. Never OFFSET: a page costs the same however deep it is, and inserts between requests
 * neither skip nor repeat items.
 */
import { and, asc, desc, eq, gt, gte, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/client";
import { parameterize } from "../db/compiler";
import type { Result } from "../domain/result";
import type {
  Collection,
  OrderKey,
  Page,
  PageBudget,
  PageQuery,
  PageRequest,
  PreparedPage,
  RowOf,
  SortKey,
} from "./collection";
import { pageOfRows } from "./page";

// biome-ignore lint/suspicious/noExplicitAny: any row type; RowOf<C> gives the caller its own.
type AnyCollection = Collection<SQLiteTable, any>;

/**
 * ORDER BY keys: the requested attributes, then the id. The id takes the direction of the last
 * attribute (ascending with no sort): one (scope, attribute, id) index then delivers the whole order,
 * read forward or backward, where a mixed direction would need a sort step. Keys after an explicit
 * `id` are dropped: the id is unique, nothing after it can change the order.
 */
function orderKeys(collection: AnyCollection, sort: readonly SortKey[]): OrderKey[] {
  const keys: OrderKey[] = [];
  for (const { column, descending } of sort) {
    keys.push({ column, descending });
    if (column === collection.id) return keys;
  }
  keys.push({ column: collection.id, descending: keys.at(-1)?.descending ?? false });
  return keys;
}

/** The keys in the direction of the walk: `before` reads backwards from the cursor. */
function walkKeys(collection: AnyCollection, request: PageRequest): OrderKey[] {
  const keys = orderKeys(collection, request.sort);
  return request.before === undefined ? keys : keys.map((k) => ({ ...k, descending: !k.descending }));
}

/**
 * Rows strictly past the cursor item in the direction of `keys`. The cursor's values are read by
 * subqueries inside the page's own statement, not by a round trip before it: SQLite evaluates each
 * (uncorrelated) subquery once and seeks the index from its value as from a bound parameter. The
 * subqueries look the id up unscoped; the page stays scoped, and `cursorInScope` empties it for a
 * cursor outside the scope.
 */
function seek(collection: AnyCollection, keys: readonly OrderKey[], id: string): SQL {
  // The id's own value is the cursor; the other keys' values are read from the cursor's row.
  const cursorValue = (key: OrderKey) =>
    key.column === collection.id
      ? sql`${sql.param(id, key.column)}`
      : sql`(select ${key.column} from ${collection.table} where ${eq(collection.id, id)})`;
  const past = (key: OrderKey, value: SQL) => (key.descending ? lt(key.column, value) : gt(key.column, value));
  const first = keys[0]!;
  if (keys.length === 1) return past(first, cursorValue(first));
  if (keys.every((k) => k.descending === first.descending)) {
    // A row value of one subquery per key (a single row subquery would seek on its first column only):
    // SQLite seeks the index range (scope, attribute, id) from the cursor directly.
    const columns = sql.join(
      keys.map((k) => k.column),
      sql`, `,
    );
    const values = sql.join(keys.map(cursorValue), sql`, `);
    return first.descending ? sql`(${columns}) < (${values})` : sql`(${columns}) > (${values})`;
  }
  // Mixed directions: (k1 past v1) OR (k1 = v1 AND k2 past v2) OR …; the leading bound on k1 lets the
  // index range start at the cursor instead of at the beginning of the scope.
  const bound = first.descending ? lte(first.column, cursorValue(first)) : gte(first.column, cursorValue(first));
  const alternatives = keys.map((key, i) =>
    and(...keys.slice(0, i).map((k) => eq(k.column, cursorValue(k))), past(key, cursorValue(key))),
  );
  return and(bound, or(...alternatives))!;
}

/** A cursor that is an item of the scope: false turns the page empty (`keysetPage` then says why). */
const cursorInScope = (collection: AnyCollection, scope: SQL, id: string) =>
  sql`exists (select 1 from ${collection.table} where ${and(eq(collection.id, id), scope)})`;

interface PageParts {
  where: SQL;
  orderBy: SQL[];
  limit: number;
  keys: OrderKey[];
  /** The order's columns and directions, as a key of the page's shape. */
  order: string;
}

function pageParts(collection: AnyCollection, scope: SQL, request: PageRequest): PageParts {
  const keys = walkKeys(collection, request);
  const conditions = [scope, ...request.filter.map((t) => t.condition)];
  const id = request.after ?? request.before;
  if (id !== undefined) conditions.push(cursorInScope(collection, scope, id), seek(collection, keys, id));
  return {
    where: and(...conditions)!,
    orderBy: keys.map((k) => (k.descending ? desc(k.column) : asc(k.column))),
    limit: request.limit + 1,
    keys,
    order: keys.map((k) => `${k.column.name} ${k.descending ? "desc" : "asc"}`).join(","),
  };
}

function pageQuery<C extends AnyCollection>(db: Database, collection: C, where: SQL, parts: PageParts) {
  const { orderBy, limit } = parts;
  return collection.read
    ? collection.read(db, where, orderBy, limit, parts.keys)
    : (db
        .select()
        .from(collection.table)
        .where(where)
        .orderBy(...orderBy)
        .limit(limit) as unknown as PageQuery<RowOf<C>>);
}

/**
 * The page's statement (limit + 1 rows, to know whether more follow), cursor included, as Drizzle builds
 * it; `keysetPage` runs the same SQL prepared. Exposed so that tests can read its plan and compare.
 */
export function keysetQuery<C extends AnyCollection>(
  db: Database,
  collection: C,
  scope: SQL,
  request: PageRequest,
): PageQuery<RowOf<C>> {
  const parts = pageParts(collection, scope, request);
  return pageQuery(db, collection, parts.where, parts);
}

/**
 * Prepared page statements per database, way of reading (the collection's `read`, else its table) and
 * shape (conditions, order, limit). Not per collection object: a collection made per request (one with a
 * filter bound to the partner) reuses the statements of its shapes all the same.
 */
const prepared = new WeakMap<Database, WeakMap<object, Map<string, PreparedPage<unknown>>>>();
/** Shapes kept per collection: filters come from partners, so their combinations are bounded here. */
const MAX_SHAPES = 256;

/**
 * The page's statement, prepared once per shape and bound with this request's values: building and
 * rendering the query through Drizzle is most of a list page's own CPU, and a partner's pages repeat
 * a few shapes (the same filters and sort, page after page).
 */
function preparedPage<C extends AnyCollection>(db: Database, collection: C, scope: SQL, request: PageRequest) {
  const parts = pageParts(collection, scope, request);
  const { values, shape } = parameterize(parts.where);
  let byReading = prepared.get(db);
  if (!byReading) {
    byReading = new WeakMap();
    prepared.set(db, byReading);
  }
  const reading = collection.read ?? collection.table;
  let shapes = byReading.get(reading);
  if (!shapes) {
    shapes = new Map();
    byReading.set(reading, shapes);
  }
  const key = `${shape}\u0001${parts.order}\u0001${parts.limit}`;
  let query = shapes.get(key);
  if (!query) {
    const { template } = parameterize(parts.where, true);
    query = pageQuery(db, collection, template!, parts).prepare();
    if (shapes.size >= MAX_SHAPES) shapes.delete(shapes.keys().next().value!);
    shapes.set(key, query);
  }
  return (query as PreparedPage<RowOf<C>>).execute(values);
}

/**
 * One page of `collection` within `scope` (e.g. the session's partner), as `request` asks: one
 * prepared statement, one D1 round trip (see `pageOfRows` for a cursor the page does not follow).
 */
export async function keysetPage<C extends AnyCollection, Row = RowOf<C>>(
  db: Database,
  collection: C,
  scope: SQL,
  request: PageRequest,
): Promise<Result<Page<Row>>> {
  const fetched = (await preparedPage(db, collection, scope, request)) as Row[];
  return pageOfRows(
    request,
    fetched,
    collection.idKey,
    async (id) => {
      const cursor = await db
        .select({ id: collection.id })
        .from(collection.table)
        .where(and(eq(collection.id, id), scope))
        .get();
      return cursor !== undefined;
    },
    collection.budget as PageBudget<Row> | undefined,
  );
}
