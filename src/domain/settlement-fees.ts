/**
 * The fee the service keeps on each sale, and the VAT on that fee (CONTRACT 6b), in integer minor
 * units. Pure: no HTTP, no SQL.
 */

/**
 * `amount × numerator / denominator` rounded half away from zero, exactly: BigInt keeps the product
 * exact past 2^53, and rounding the magnitude makes the rule symmetric, so the fee of a negative sale (a
 * discount, a reversal) is exactly the negative of the fee of the positive one and they cancel out.
 */
export function shareRounded(amount: number, numerator: number, denominator: number): number {
  if (![amount, numerator, denominator].every(Number.isSafeInteger) || numerator < 0 || denominator <= 0) {
    throw new RangeError(`a share is of whole amounts, not ${amount} × ${numerator} / ${denominator}`);
  }
  const magnitude = BigInt(Math.abs(amount)) * BigInt(numerator);
  const rounded = Number((2n * magnitude + BigInt(denominator)) / (2n * BigInt(denominator)));
  return amount < 0 ? 0 - rounded : rounded; // 0 - 0 is 0, never -0
}

/** The fee on a sale of `amount` at `basisPoints` (1 bp = 0.01 %), positive for a positive sale. */
export const feeOf = (amount: number, basisPoints: number): number => shareRounded(amount, basisPoints, 10_000);

/** The VAT on a fee at `ratePercent`. */
export const feeVatOf = (fee: number, ratePercent: number): number => shareRounded(fee, ratePercent, 100);
