/**
 * The payouts' closing cost (issue 47): settlement entries of yesterday, as sends would have entered
 * them (a sale, its fee and the fee's VAT per shipped application), closed by the Worker's own
 * scheduled handler (the Cron Trigger's entry) into one payout per partner, run until none is left.
 * Reported as workerd's CPU and the wall time per entry taken: the closing reads sums, not rows, and
 * writes in four statements per payout whatever it takes, so the cost per entry is D1's UPDATE and
 * INSERT … SELECT, row by row.
 */
import type { Miniflare } from "miniflare";
import { log } from "./config";
import { cpuBetween, cpuSnapshot, drain } from "./cpu";

export interface PayoutsResult {
  entries: number;
  payouts: number;
  runs: number;
  workerdMs: number;
  wallMs: number;
}

const DAY = 86_400_000;

export async function measurePayouts(mf: Miniflare, applications: number): Promise<PayoutsResult> {
  const db = await mf.getD1Database("DB");
  const yesterday = Date.now() - DAY;
  // Three entries per shipped application, of every partner that has some: what yesterday's sends entered.
  const inserted = await db
    .prepare(
      `INSERT INTO settlement_entries (id, partner_id, type, amount, currency, application_id, order_number,
         variable_symbols, line_id, shipment_id, refund_id, created_at, payout_id)
       SELECT a.id || '-' || t.type, a.partner_id, t.type,
         CASE t.type WHEN 'SALE' THEN a.total_amount WHEN 'FEE' THEN -(a.total_amount * 250 + 5000) / 10000
           ELSE -(a.total_amount * 525 + 500000) / 1000000 END,
         a.currency, a.id, a.order_number, json_array(a.variable_symbols), NULL, NULL, NULL, ?1, NULL
       FROM (SELECT * FROM applications WHERE state_reason = 'READY_SHIPPED' LIMIT ?2) a
       CROSS JOIN (SELECT 'SALE' AS type UNION ALL SELECT 'FEE' UNION ALL SELECT 'FEE_VAT') t`,
    )
    .bind(yesterday, applications)
    .run();
  // Only these are before the cutoff: what the rounds' sends and refunds entered today waits for tomorrow's.
  const open = async () =>
    (await db
      .prepare("SELECT COUNT(*) AS n FROM settlement_entries WHERE payout_id IS NULL AND created_at = ?")
      .bind(yesterday)
      .first<{ n: number }>())!.n;
  const entries = inserted.meta.changes;
  // Each partner is visited once per cutoff: the sweep's measurement before this ran the cron, which
  // visited them all with nothing to close. Entries of yesterday written after it wait for the next cutoff,
  // so the partners are made unvisited, as on the first run after the cutoff.
  await db.prepare("UPDATE partners SET payouts_closed_until = 0").run();
  const worker = await mf.getWorker("api");
  await drain();
  const before = cpuSnapshot();
  const started = performance.now();
  let runs = 0;
  while ((await open()) > 0 && runs < 10) {
    await worker.scheduled({ cron: "*/5 * * * *", scheduledTime: new Date() });
    runs++;
  }
  const wallMs = performance.now() - started;
  const { workerdMs } = cpuBetween(before, cpuSnapshot());
  const payouts = (await db.prepare("SELECT COUNT(*) AS n FROM payouts").first<{ n: number }>())!.n;
  const left = await open();
  // A closing that took nothing measured nothing: stop rather than report a cost per entry of it.
  if (payouts === 0 || left > 0)
    throw new Error(`the payouts' closing left ${left} of ${entries} entries open (${payouts} payouts)`);
  const result = { entries, payouts, runs, workerdMs, wallMs };
  log(
    `  payouts: ${entries} entries closed into ${payouts} payout(s) in ${runs} run(s): ${(workerdMs / entries).toFixed(4)} ms CPU, ${(wallMs / entries).toFixed(4)} ms wall per entry`,
  );
  return result;
}
