/**
 * Applications at the end of their life, for the tests of the archive (src/db/archive.ts): a whole
 * reference life (approved at the gateway, delivered, paid out, every notification delivered) and the
 * sandbox's clock moved past the archive's age.
 */
import { expect } from "vitest";
import { call } from "./api";
import { app, put } from "./orders";
import { closeNow } from "./settlement-api";
import { dbOfApplication } from "./shards";
import { confirmed, DAY } from "./time";

/** ARCHIVE_AFTER_DAYS as the tests run it (the default). */
export const AGE = 90 * DAY;

/** The sandbox's advance of one application's clock. */
export async function advance(token: string, id: string, seconds: number) {
  const res = await call("POST", `/financing/v1/sandbox/applications/${id}/advance-time`, { token, body: { seconds } });
  if (res.status !== 200) throw new Error(`advance answered ${res.status}: ${await res.text()}`);
}

/**
 * The application's pending events delivered, one attempt each, as a healthy endpoint answers (the
 * tests hold the queue back). The attempts' ids end in "-1", so that they can be counted once their
 * events are gone.
 */
export async function delivered(applicationId: string) {
  const db = await dbOfApplication(applicationId);
  await db.batch([
    db
      .prepare(
        `INSERT INTO notification_attempts (id, event_id, attempted_at, http_status, error, duration_ms)
       SELECT id || '-1', id, occurred_at, 200, NULL, 12 FROM events WHERE application_id = ?1 AND status = 'PENDING'`,
      )
      .bind(applicationId),
    db
      .prepare(
        "UPDATE events SET status = 'DELIVERED', delivered_at = occurred_at, next_attempt_at = NULL WHERE application_id = ?1",
      )
      .bind(applicationId),
  ]);
}

/** A whole reference life: approved at the gateway, delivered, paid out (READY_PAID), every event delivered. */
export async function finished(token: string, steps: "deliver" | "send then deliver" = "deliver") {
  const created = await confirmed(token);
  if (steps === "send then deliver") expect((await put(token, `${app(created.id)}/order/send`, {})).status).toBe(200);
  expect((await put(token, `${app(created.id)}/order/deliver`, {})).status).toBe(200);
  await closeNow(token);
  await delivered(created.id);
  return created;
}
