import { call, json } from "./api";
import { type ApplicationRequest, applicationRequest } from "./application-request";
import { dbOfApplication, shardDatabases } from "./shards";

export { type ApplicationRequest, applicationRequest };

export interface ApplicationView {
  id: string;
  state: string;
  stateReason: string;
  gatewayRedirectUrl: string;
  order: Record<string, unknown> & { items: Record<string, unknown>[] };
  [key: string]: unknown;
}

export async function createApplication(token: string, body: unknown = applicationRequest()) {
  const res = await call("POST", "/financing/v1/applications", { token, body });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
  return json<ApplicationView>(res);
}

/** Test set-up only: puts an application into a state without going through the gateway. */
export async function forceState(id: string, state: string, stateReason: string, approvedAmount?: number) {
  // As an approval now would leave it: decided, with the authorization's default 28 days and its
  // reminder 7 days before (src/domain/deadlines.ts); other states here keep no deadline.
  const at = Date.now();
  const expiresAt = state === "READY" ? at + 28 * 86_400_000 : null;
  const reminderAt = expiresAt === null ? null : expiresAt - 7 * 86_400_000;
  await (await dbOfApplication(id))
    .prepare(
      `UPDATE applications SET state = ?, state_reason = ?, approved_amount = COALESCE(?, total_amount),
       decided_at = ?, expires_at = ?, reminder_at = ?, next_due_at = ?, version = version + 1 WHERE id = ?`,
    )
    .bind(state, stateReason, approvedAmount ?? null, at, expiresAt, reminderAt, reminderAt, id)
    .run();
}

/** Test set-up only: approved at `decidedAt`, its authorization (extended) until `expiresAt`, reminded already. */
export async function forceExtended(id: string, decidedAt: number, expiresAt: number) {
  await forceState(id, "READY", "READY_TO_SHIP");
  await (await dbOfApplication(id))
    .prepare("UPDATE applications SET decided_at = ?, expires_at = ?, reminder_at = NULL, next_due_at = ? WHERE id = ?")
    .bind(decidedAt, expiresAt, expiresAt, id)
    .run();
}

/** Test set-up only: the customer confirmed and a manual review that approves settles at `reviewAt`. */
export async function forceReview(id: string, reviewAt: number) {
  await (await dbOfApplication(id))
    .prepare(
      `UPDATE applications SET state = 'PROCESSING', state_reason = 'PROCESSING_MANUAL_REVIEW', review_at = ?,
       review_outcome = 'APPROVE', expires_at = NULL, reminder_at = NULL, next_due_at = ?, version = version + 1
     WHERE id = ?`,
    )
    .bind(reviewAt, reviewAt, id)
    .run();
}

/** Test set-up only: marks lines with the given code as `state`. */
export async function forceLineState(applicationId: string, code: string, state: string) {
  await (await dbOfApplication(applicationId))
    .prepare("UPDATE order_lines SET state = ? WHERE application_id = ? AND code = ?")
    .bind(state, applicationId, code)
    .run();
}

/**
 * Rows of `table` matching `where`, over every shard (each partner's rows are in one). Partners are
 * counted where their whole row is: the directory's rows of other shards' partners are not counted.
 */
export async function countRows(table: string, where = "1 = 1", ...bind: unknown[]): Promise<number> {
  let n = 0;
  for (const [shard, binding] of shardDatabases().entries()) {
    const own = table === "partners" ? ` AND shard = ${shard}` : "";
    const row = await binding
      .prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE (${where})${own}`)
      .bind(...bind)
      .first<{ n: number }>();
    n += row!.n;
  }
  return n;
}

export const applicationCount = (partnerId: string) => countRows("applications", "partner_id = ?", partnerId);

export async function eventsOf(applicationId: string) {
  const rows = await (await dbOfApplication(applicationId))
    .prepare(
      "SELECT sequence, state, state_reason AS stateReason FROM events WHERE application_id = ? ORDER BY sequence",
    )
    .bind(applicationId)
    .all<{ sequence: number; state: string; stateReason: string }>();
  return rows.results;
}

/** A deep copy with `path` (dot/bracket-free segments) removed or replaced. */
export function withPath(body: unknown, path: (string | number)[], value: unknown | typeof REMOVE): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let target = copy as Record<string | number, unknown>;
  for (const segment of path.slice(0, -1)) target = target[segment] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (value === REMOVE) {
    if (Array.isArray(target)) target.splice(last as number, 1);
    else delete target[last];
  } else target[last] = value;
  return copy;
}
export const REMOVE = Symbol("remove");

/** A consistent create request with nine lines (more than one multi-row insert holds). */
export function nineLines() {
  const body = applicationRequest();
  const items = Array.from({ length: 9 }, (_, i) => ({
    code: `ITEM-${i + 1}`,
    name: `Item ${i + 1}`,
    type: "PHYSICAL",
    quantity: 1,
    totalPrice: { amount: 10000, currency: "CZK" },
    totalVat: { vatRate: 21, amount: 1736, currency: "CZK" },
  }));
  return {
    ...body,
    order: {
      ...body.order,
      items,
      totalPrice: { amount: 90000, currency: "CZK" },
      totalVat: [{ vatRate: 21, amount: 9 * 1736, currency: "CZK" }],
    },
  };
}
