import { newId } from "../../src/ids";
import { dbOf } from "./shards";

/**
 * Stores `count` events (ids in time order, from `start`), the i-th of application `applications[i % n]`
 * of its partner, and `attemptsEach` delivery attempts of each; answers the events' ids in order. The
 * applications are of one partner, or of partners of one shard.
 */
export async function storeEvents(
  applications: readonly { id: string; partnerId: string }[],
  count: number,
  { start = Date.UTC(2026, 10, 1), attemptsEach = 0 } = {},
): Promise<string[]> {
  const db = await dbOf(applications[0]!.partnerId);
  const event = db.prepare(
    `INSERT INTO events (id, application_id, partner_id, sequence, state, state_reason, occurred_at)
     VALUES (?, ?, ?, ?, 'PROCESSING', 'PROCESSING', ?)`,
  );
  const attempt = db.prepare(
    "INSERT INTO notification_attempts (id, event_id, attempted_at, http_status, duration_ms) VALUES (?, ?, ?, 500, 12)",
  );
  const ids: string[] = [];
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < count; i++) {
    const at = start + i * 1000;
    const id = newId(at);
    const application = applications[i % applications.length]!;
    ids.push(id);
    statements.push(event.bind(id, application.id, application.partnerId, i + 1, at));
    for (let a = 0; a < attemptsEach; a++) statements.push(attempt.bind(newId(at + a + 1), id, at + a + 1));
  }
  for (let i = 0; i < statements.length; i += 200) await db.batch(statements.slice(i, i + 200));
  return ids;
}
