/**
 * The keyset query: ORDER BY the sort keys and finally the id, seeking past the cursor item's values,
 * limit + 1 rows. Never OFFSET: a page costs the same however deep it is, and inserts between requests
 * neither skip nor repeat items.
 */
import { and, asc, desc, eq, getTableColumns, gt, gte, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/client";
import { ok, problem, type Result, refused } from "../domain/result";
import type { Collection, Page, PageRequest, SortKey } from "./collection";

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
 * The cursor item's values of the sort keys, looked up in the same scope as the list: undefined when
 * the request has no cursor, null when the id is unknown or outside the scope.
 */
export async function cursorValues(
  db: Database,
  collection: Collection,
  scope: SQL,
  request: PageRequest,
): Promise<unknown[] | undefined | null> {
  const id = request.after ?? request.before;
  if (id === undefined) return undefined;
  const keys = orderKeys(collection, request.sort);
  const row = await db
    .select(Object.fromEntries(keys.map((k, i) => [`k${i}`, k.column])))
    .from(collection.table)
    .where(and(eq(collection.id, id), scope))
    .get();
  if (!row) return null;
  return keys.map((_, i) => (row as Record<string, unknown>)[`k${i}`]);
}

/**
 * One page of `collection` within `scope` (e.g. the session's partner), as `request` asks. A cursor
 * that is unknown or outside the scope is refused: it must be an id from a page we served, and an
 * empty page would hide the client's bug (or let it probe other partners' ids).
 */
export async function keysetPage<TTable extends SQLiteTable>(
  db: Database,
  collection: Collection<TTable>,
  scope: SQL,
  request: PageRequest,
): Promise<Result<Page<TTable["$inferSelect"]>>> {
  const from = await cursorValues(db, collection, scope, request);
  if (from === null) {
    const attribute = request.after !== undefined ? "after" : "before";
    const id = request.after ?? request.before;
    return refused(
      problem(
        "INVALID_VALUE",
        `"${id}" is not the id of an item of this list; use an id from a page served`,
        attribute,
      ),
    );
  }
  const fetched = (await keysetQuery(db, collection, scope, request, from)) as TTable["$inferSelect"][];
  const more = fetched.length > request.limit;
  const rows = fetched.slice(0, request.limit);
  const backward = request.before !== undefined;
  if (backward) rows.reverse();
  const idKey = Object.entries(getTableColumns(collection.table)).find(([, c]) => c === collection.id)?.[0];
  if (idKey === undefined) throw new Error("collection id is not a column of its table");
  const idOf = (row: TTable["$inferSelect"] | undefined) =>
    row === undefined ? undefined : String((row as Record<string, unknown>)[idKey]);
  return ok({
    rows,
    // Walking backwards, the cursor item itself follows; walking forward from a cursor, it precedes.
    hasMoreAfter: backward || more,
    hasMoreBefore: backward ? more : request.after !== undefined,
    ...(rows.length > 0 ? { firstId: idOf(rows[0])!, lastId: idOf(rows.at(-1))! } : {}),
  });
}
