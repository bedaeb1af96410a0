/**
 * Where the lines after an operation came from, so that what happened to their units can be told from
 * the lines alone (which units went out now, which became payable now). Pure: no HTTP, no SQL.
 */
import type { Line } from "./order-lines";

/**
 * The line of `before` that each line of `after` holds units of: the line itself (same id), or, for a
 * piece the operation split off, its origin. A split (order-lines.ts) gives the touched units a new id
 * and leaves the rest on the origin's id and position, so the origin is the line at the piece's position
 * whose quantity fell by the piece's quantity. An operation splits a line at most once, so each origin
 * is taken by one piece. Lines of new content (a change of order) have no origin.
 */
export function originsOf<L extends Line>(before: readonly L[], after: readonly L[]): Map<string, L> {
  const afterById = new Map(after.map((line) => [line.id, line]));
  const shrunk = before.filter((line) => (afterById.get(line.id)?.quantity ?? line.quantity) < line.quantity);
  const origins = new Map<string, L>();
  const byId = new Map(before.map((line) => [line.id, line]));
  for (const line of after) {
    const same = byId.get(line.id);
    if (same) {
      origins.set(line.id, same);
      continue;
    }
    const i = shrunk.findIndex(
      (origin) =>
        origin.position === line.position && origin.quantity - afterById.get(origin.id)!.quantity === line.quantity,
    );
    if (i >= 0) origins.set(line.id, shrunk.splice(i, 1)[0]!);
  }
  return origins;
}
