/**
 * `npm run partner:terms -- --username NAME [--settles-on SENT|DELIVERED] [--fee-deferred-payment BP]
 * [--fee-pay-in-three BP] [--fee-vat-rate PERCENT] [--wire-profile DEFAULT|SKIP_PAY]
 * [--remote | --persist-to DIR]`: a partner's terms: its settlement (CONTRACT 6b) and the shapes its
 * answers take (its wire profile, 6c). Without an option it prints them; with options it changes what
 * they name and keeps the rest (src/domain/partner-terms.ts checks the settlement's: basis points 0 to
 * 10 000, a whole VAT percent 0 to 100). Operations from then on enter their fees by the new terms;
 * entries already made keep theirs. A token keeps the wire profile of its login: a new one applies from
 * the partner's next login (at most 2 hours), notifications follow it at once. Prints one JSON line:
 * the terms in force.
 */
import { parseArgs } from "node:util";
import { type TermsRow, termsOf, termsRow } from "../src/db/partner-terms";
import { planTermsChange, type SettlesOn } from "../src/domain/partner-terms";
import { isWireProfile, WIRE_PROFILES, type WireProfile } from "../src/domain/wire-profile";
import { checkUsername, d1Rows, partnerBinding } from "./lib";

const USAGE = `usage: npm run partner:terms -- --username NAME [--settles-on SENT|DELIVERED] [--fee-deferred-payment BP] [--fee-pay-in-three BP] [--fee-vat-rate PERCENT] [--wire-profile ${WIRE_PROFILES.join("|")}] [--remote | --persist-to DIR]`;

const { values } = parseArgs({
  options: {
    username: { type: "string" },
    "settles-on": { type: "string" },
    "fee-deferred-payment": { type: "string" },
    "fee-pay-in-three": { type: "string" },
    "fee-vat-rate": { type: "string" },
    "wire-profile": { type: "string" },
    remote: { type: "boolean", default: false },
    "persist-to": { type: "string" },
  },
});

/** A number as given (the domain says whether it is a whole number in range); absent stays absent. */
const number = (text: string | undefined) => (text === undefined ? undefined : Number(text));

const COLUMNS = `settles_on AS settlesOn, fee_bp_deferred_payment AS feeBasisPointsDeferredPayment,
  fee_bp_pay_in_three AS feeBasisPointsPayInThree, fee_vat_rate AS feeVatRate, wire_profile AS wireProfile`;

type Row = TermsRow & { wireProfile: WireProfile };

try {
  if (!values.username) throw new Error(USAGE);
  checkUsername(values.username);
  const profile = values["wire-profile"];
  if (profile !== undefined && !isWireProfile(profile)) throw new Error(`--wire-profile: not a profile: ${profile}`);
  const database = { remote: values.remote, persistTo: values["persist-to"] };
  const where = `WHERE username = '${values.username}'`;
  // The terms are the shard's row's (src/db/shards.ts); the wire profile is the directory's too, for logins.
  const binding = partnerBinding(values.username, database);
  const [current] = d1Rows<Row>(`SELECT ${COLUMNS} FROM partners ${where};`, database, binding)[0] ?? [];
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
  // Checked: one of SETTLES_ON, whole numbers and one of WIRE_PROFILES, so safe to inline.
  const row = termsRow(changed.value);
  const [[written]] = d1Rows<Row>(
    `UPDATE partners SET settles_on = '${row.settlesOn}', fee_bp_deferred_payment = ${row.feeBasisPointsDeferredPayment},
       fee_bp_pay_in_three = ${row.feeBasisPointsPayInThree}, fee_vat_rate = ${row.feeVatRate},
       wire_profile = '${profile ?? current.wireProfile}' ${where} RETURNING ${COLUMNS};`,
    database,
    binding,
  ) as [[Row]];
  if (binding !== "DB" && profile !== undefined) {
    d1Rows(`UPDATE partners SET wire_profile = '${profile}' ${where};`, database);
  }
  console.log(JSON.stringify({ username: values.username, ...termsOf(written), wireProfile: written.wireProfile }));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
