/**
 * `npm run payouts:export [-- --remote | --persist-to DIR]`: the PENDING payouts as CSV, the file a
 * treasury turns into bank transfers: one row per payout with the partner, the amount in minor units,
 * its currency and the reference to use as the variable symbol (so that the partner's statement line
 * names the payout). Once the bank has answered, `npm run payouts:mark` records it.
 */
import { parseArgs } from "node:util";
import Papa from "papaparse";
import { d1Rows, shardBindings } from "./lib";

const { values } = parseArgs({
  options: { remote: { type: "boolean", default: false }, "persist-to": { type: "string" } },
});

try {
  // Every shard's (src/db/shards.ts), a shard after the other.
  const rows = shardBindings().flatMap(
    (binding) =>
      d1Rows<Record<string, string | number>>(
        `SELECT p.reference, pa.username AS partner, p.currency, p.net AS amount, p.entries, p.period_end AS periodEnd, p.id AS payoutId
     FROM payouts p JOIN partners pa ON pa.id = p.partner_id WHERE p.status = 'PENDING' ORDER BY p.created_at, p.id;`,
        { remote: values.remote, persistTo: values["persist-to"] },
        binding,
      )[0]!,
  );
  const data = rows.map(
    (row): Record<string, string | number> => ({
      ...row,
      periodEnd: new Date(Number(row.periodEnd)).toISOString(),
    }),
  );
  const columns = ["reference", "partner", "currency", "amount", "entries", "periodEnd", "payoutId"];
  console.log(
    Papa.unparse(
      { fields: columns, data: data.map((row) => columns.map((c) => row[c])) },
      { newline: "\r\n", escapeFormulae: true },
    ),
  );
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
