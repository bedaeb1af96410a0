/** A page made of the rows its keyset statement read: the same for every way a list is read. */
import { ok, problem, type Result, refused } from "../domain/result";
import type { Page, PageBudget, PageRequest } from "./collection";

/**
 * The page of `fetched` (up to limit + 1 rows in the direction of the walk, to know whether more follow).
 * A cursor that is unknown or outside the list is refused: it must be an id from a page we served, and
 * an empty page would hide the client's bug (or let it probe other partners' ids). Such a cursor
 * empties the page, so only an empty page asks `isItem` (a second statement) to tell a cursor at the
 * end of the list from one that is not in it.
 */
export async function pageOfRows<Row>(
  request: PageRequest,
  fetched: Row[],
  idKey: string,
  isItem: (id: string) => Promise<boolean>,
  budget?: PageBudget<Row>,
): Promise<Result<Page<Row>>> {
  const id = request.after ?? request.before;
  if (id !== undefined && fetched.length === 0 && !(await isItem(id))) {
    const attribute = request.after !== undefined ? "after" : "before";
    return refused(
      problem(
        "INVALID_VALUE",
        `"${id}" is not the id of an item of this list; use an id from a page served`,
        attribute,
      ),
    );
  }
  const fitting = budget ? within(fetched.slice(0, request.limit), budget) : Math.min(fetched.length, request.limit);
  const more = fetched.length > fitting;
  const rows = fetched.slice(0, fitting);
  const backward = request.before !== undefined;
  if (backward) rows.reverse();
  const idOf = (row: Row | undefined) =>
    row === undefined ? undefined : String((row as Record<string, unknown>)[idKey]);
  return ok({
    rows,
    // Walking backwards, the cursor item itself follows; walking forward from a cursor, it precedes.
    hasMoreAfter: backward || more,
    hasMoreBefore: backward ? more : request.after !== undefined,
    ...(fitting < request.limit && more ? { limitedTo: fitting } : {}),
    ...(rows.length > 0 ? { firstId: idOf(rows[0])!, lastId: idOf(rows.at(-1))! } : {}),
  });
}

/** How many of `rows` a page gives within its budget: the first always, then while the sum stays within it. */
function within<Row>(rows: readonly Row[], budget: PageBudget<Row>): number {
  let bytes = 0;
  for (const [i, row] of rows.entries()) {
    bytes += budget.bytesOf(row);
    if (i > 0 && bytes > budget.bytes) return i;
  }
  return rows.length;
}
