/**
 * A write's batch run as one: D1 has no interactive transactions, so a write's checks are constraints
 * inside its batch, and a failed one rolls the whole batch back. Here what failed is told apart.
 */
import { QUOTA_CHECK, StorageQuotaExceeded } from "./storage";

/** The guard after a conditional update: its CHECK fails the batch when that update matched nothing. */
export const WRITE_GUARD = "INSERT OR REPLACE INTO write_guard (id, ok) VALUES (1, changes())";

/** Raised when another request changed the application between our read and our write. */
export class WriteConflict extends Error {}

/**
 * Executes a write batch; a failed guard means a concurrent write won, reported as WriteConflict, and a
 * failed quota check that the partner's storage is used up (StorageQuotaExceeded).
 */
export async function commit(client: D1Database, statements: D1PreparedStatement[]) {
  try {
    return await client.batch(statements);
  } catch (error) {
    if (isConstraintError(error, "write_guard_ok")) throw new WriteConflict();
    if (isConstraintError(error, QUOTA_CHECK)) throw new StorageQuotaExceeded();
    throw error;
  }
}

/** Whether a D1 error (possibly wrapped by Drizzle) is the violation of the named constraint or index. */
export function isConstraintError(error: unknown, name: string): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if (String((e as Error).message ?? e).includes(name)) return true;
  }
  return false;
}
