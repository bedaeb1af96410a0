/**
 * `npm run partner:terms -- --username NAME [--settles-on SENT|DELIVERED] [--fee-deferred-payment BP]
 * [--fee-pay-in-three BP] [--fee-vat-rate PERCENT] [--remote | --persist-to DIR]`: a partner's
 * settlement terms (CONTRACT 6b). Without an option it prints them; with options it changes what they
 * name and keeps the rest (src/domain/partner-terms.ts checks them: basis points 0 to 10 000, a whole
 * VAT percent 0 to 100). Operations from then on enter their fees by the new terms; entries already
 * made keep theirs. Prints one JSON line: the terms in force.
 */
import { parseArgs } from "node:util";
import { type TermsRow, termsOf, termsRow } from "../src/db/partner-terms";
import { planTermsChange, type SettlesOn } from "../src/domain/partner-terms";
import { checkUsername, d1Rows } from "./lib";

const USAGE =
  "usage: npm run partner:terms -- --username NAME [--settles-on SENT|DELIVERED] [--fee-deferred-payment BP] [--fee-pay-in-three BP] [--fee-vat-rate PERCENT] [--remote | --persist-to DIR]";

const { values } = parseArgs({
  options: {
    username: { type: "string" },
    "settles-on": { type: "string" },
    "fee-deferred-payment": { type: "string" },
    "fee-pay-in-three": { type: "string" },
    "fee-vat-rate": { type: "string" },
    remote: { type: "boolean", default: false },
    "persist-to": { type: "string" },
  },
});

/** A number as given (the domain says whether it is a whole number in range); absent stays absent. */
const number = (text: string | undefined) => (text === undefined ? undefined : Number(text));

const COLUMNS = `settles_on AS settlesOn, fee_bp_deferred_payment AS feeBasisPointsDeferredPayment,
  fee_bp_pay_in_three AS feeBasisPointsPayInThree, fee_vat_rate AS feeVatRate`;

try {
  if (!values.username) throw new Error(USAGE);
  checkUsername(values.username);
  const database = { remote: values.remote, persistTo: values["persist-to"] };
  const where = `WHERE username = '${values.username}'`;
  const [current] = d1Rows<TermsRow>(`SELECT ${COLUMNS} FROM partners ${where};`, database)[0] ?? [];
  if (!current) throw new Error(`no partner "${values.username}"`);
  const changed = planTermsChange(termsOf(current), {
    settlesOn: values["settles-on"] as SettlesOn | undefined,
    feeBasisPoints: {
      DEFERRED_PAYMENT: number(values["fee-deferred-payment"]),
      PAY_IN_THREE: number(values["fee-pay-in-three"]),
    },
    feeVatRate: number(values["fee-vat-rate"]),
  });
  if (!changed.ok) throw new Error(changed.problems.map((p) => `${p.attribute}: ${p.message}`).join("; "));
  // Checked by the domain: one of SETTLES_ON and whole numbers, so safe to inline.
  const row = termsRow(changed.value);
  const [[written]] = d1Rows<TermsRow>(
    `UPDATE partners SET settles_on = '${row.settlesOn}', fee_bp_deferred_payment = ${row.feeBasisPointsDeferredPayment},
       fee_bp_pay_in_three = ${row.feeBasisPointsPayInThree}, fee_vat_rate = ${row.feeVatRate} ${where} RETURNING ${COLUMNS};`,
    database,
  ) as [[TermsRow]];
  console.log(JSON.stringify({ username: values.username, ...termsOf(written) }));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
