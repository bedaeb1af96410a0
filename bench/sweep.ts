/**
 * The deadline sweep's cost (issue 29): approved applications whose authorization has lapsed, lapsed by
 * the Worker's own scheduled handler (the Cron Trigger's entry), run until none is due. Reported as
 * workerd's CPU and the wall time per lapsed application. The queue has no consumer in the benchmark,
 * so the lapses' notifications are enqueued and never sent.
 */
import type { Miniflare } from "miniflare";
import { log } from "./config";
import { cpuBetween, cpuSnapshot, drain } from "./cpu";

export interface SweepResult {
  applications: number;
  runs: number;
  workerdMs: number;
  wallMs: number;
}

const DAY = 86_400_000;

export async function measureSweep(mf: Miniflare, applications: number): Promise<SweepResult> {
  const db = await mf.getD1Database("DB");
  const lapsedAt = Date.now() - DAY;
  // Seeded approvals with nothing sent, their authorization's deadline a day past.
  const marked = await db
    .prepare(
      `UPDATE applications SET expires_at = ?1, next_due_at = ?1
       WHERE id IN (SELECT id FROM applications WHERE state = 'READY' AND state_reason = 'READY_TO_SHIP'
         AND expires_at IS NULL LIMIT ?2)`,
    )
    .bind(lapsedAt, applications)
    .run();
  const due = async () =>
    (await db.prepare("SELECT COUNT(*) AS n FROM applications WHERE next_due_at <= ?").bind(Date.now()).first<{
      n: number;
    }>())!.n;
  const worker = await mf.getWorker("api");
  await drain();
  const before = cpuSnapshot();
  const started = performance.now();
  let runs = 0;
  while ((await due()) > 0 && runs < 10) {
    await worker.scheduled({ cron: "*/5 * * * *", scheduledTime: new Date() });
    runs++;
  }
  const wallMs = performance.now() - started;
  const { workerdMs } = cpuBetween(before, cpuSnapshot());
  const result = { applications: marked.meta.changes, runs, workerdMs, wallMs };
  log(
    `  sweep: ${result.applications} lapsed in ${runs} run(s): ${(workerdMs / result.applications).toFixed(3)} ms CPU, ${(wallMs / result.applications).toFixed(3)} ms wall per application`,
  );
  return result;
}
