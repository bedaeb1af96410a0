/**
 * `npm run payouts:mark -- --reference REFERENCE --status PAID|FAILED [--remote | --persist-to DIR]`:
 * the operator's word on a payout once the bank has spoken (CONTRACT 6b). PAID: the transfer arrived;
 * the next cron run tells its applications (READY_PAID). FAILED: the bank returned it; its entries go
 * to the next payout, and it keeps reporting what it held. Only a PENDING payout is marked, once
 * (src/domain/payouts.ts); a mistyped reference is refused by its check digit before anything is read.
 * Prints one JSON line: the payout as marked.
 */
import { parseArgs } from "node:util";
import { MARK_PAYOUT } from "../src/db/payout-mark";
import { isPayoutReference } from "../src/domain/payout-reference";
import { type Payout, type PayoutStatus, planPayoutMark } from "../src/domain/payouts";
import { d1Rows, shardBindings } from "./lib";

const USAGE = "usage: npm run payouts:mark -- --reference REFERENCE --status PAID|FAILED [--remote | --persist-to DIR]";

const { values } = parseArgs({
  options: {
    reference: { type: "string" },
    status: { type: "string" },
    remote: { type: "boolean", default: false },
    "persist-to": { type: "string" },
  },
});

interface Row {
  id: string;
  partnerId: string;
  reference: string;
  currency: string;
  periodEnd: number;
  status: PayoutStatus;
  net: number;
  entries: number;
  createdAt: number;
  paidAt: number | null;
}

const COLUMNS = `id, partner_id AS partnerId, reference, currency, period_end AS periodEnd, status, net, entries,
  created_at AS createdAt, paid_at AS paidAt`;

try {
  const { reference, status } = values;
  if (!reference || (status !== "PAID" && status !== "FAILED")) throw new Error(USAGE);
  if (!isPayoutReference(reference)) throw new Error(`"${reference}" is not a payout reference: check its digits`);
  const database = { remote: values.remote, persistTo: values["persist-to"] };
  // The reference is ten digits, checked: safe to inline. Looked for on each shard (src/db/shards.ts).
  const found = shardBindings()
    .map((binding) => ({
      binding,
      row: d1Rows<Row>(`SELECT ${COLUMNS} FROM payouts WHERE reference = '${reference}';`, database, binding)[0]?.[0],
    }))
    .find(({ row }) => row !== undefined);
  if (!found?.row) throw new Error(`no payout ${reference}`);
  const { row, binding } = found;
  const payout: Payout = { ...row, totals: { sales: 0, refunds: 0, fees: 0, feeVat: 0, net: row.net } };
  const marked = planPayoutMark(payout, status, { at: Date.now() });
  if (!marked.ok) throw new Error(`payout ${reference}: ${marked.problems[0]!.message}`);
  // The statement the Worker's sandbox marks with, its values inlined: ours, checked, or numbers.
  const sql = MARK_PAYOUT.replace("?1", `'${marked.value.status}'`)
    .replace("?2", String(marked.value.paidAt ?? "NULL"))
    .replace("?3", `'${row.id}'`);
  const [[written]] = d1Rows<Row>(`${sql} RETURNING ${COLUMNS};`, database, binding) as [[Row | undefined]];
  // Marked meanwhile by someone else: the statement matched no PENDING payout.
  if (!written) throw new Error(`payout ${reference} is no longer PENDING; nothing changed`);
  console.log(JSON.stringify(written));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
