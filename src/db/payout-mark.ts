/**
 * The mark of a payout (PAID or FAILED, with when it was paid), by id, if it is still PENDING: one
 * statement, bound by the sandbox's close (./settlement.ts) and inlined by the operator's command
 * (scripts/payouts-mark.ts), so the two mark alike. A FAILED mark gives the payout's entries back in
 * the same statement (the trigger of migrations/0012_settlement.sql).
 */
export const MARK_PAYOUT = "UPDATE payouts SET status = ?1, paid_at = ?2 WHERE id = ?3 AND status = 'PENDING'";
