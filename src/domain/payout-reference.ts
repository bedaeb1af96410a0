/**
 * A payout's reference: the variable symbol of its bank transfer (CONTRACT 6b), which a finance team
 * matches on its statement. Pure: no HTTP, no SQL.
 *
 * 9 random digits, the first not 0, and a Luhn check digit: 10 digits in all, the longest variable
 * symbol Czech payments carry. Random rather than counted, so no row every closing must update, and a
 * partner cannot read the service's volume from its references; the database's unique index makes it
 * unique: a new reference is taken already with a chance of (payouts made) in 900 million, 1 in 900
 * after a million payouts, and the closing then retries with another. The first digit is never 0 because banks read a variable symbol as a number and drop leading
 * zeros. The check digit lets the operator's command and a support search refuse a mistyped reference.
 */

const BODY_MIN = 100_000_000;
const BODY_SPAN = 900_000_000;
/** The largest multiple of BODY_SPAN below 2^32: values above it would favour the low bodies. */
const UNBIASED_LIMIT = Math.floor(2 ** 32 / BODY_SPAN) * BODY_SPAN;

/**
 * A new reference, from a source of uniform 32-bit integers (crypto.getRandomValues in the Worker),
 * drawn again while a value would bias the result.
 */
export function newPayoutReference(randomUint32: () => number): string {
  for (;;) {
    const value = randomUint32();
    if (value < UNBIASED_LIMIT) {
      const body = String(BODY_MIN + (value % BODY_SPAN));
      return body + luhnDigit(body);
    }
  }
}

/** Whether `value` is a payout reference: 10 digits, the first not 0, the last the Luhn check digit. */
export function isPayoutReference(value: string): boolean {
  return /^[1-9]\d{9}$/.test(value) && luhnDigit(value.slice(0, 9)) === value.slice(9);
}

/** The Luhn (ISO/IEC 7812) check digit of `digits`: it catches any one wrong digit and most swaps. */
function luhnDigit(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    // Doubled: every other digit, counting from the right, starting with the rightmost.
    const digit = Number(digits[digits.length - 1 - i]);
    const doubled = i % 2 === 0 ? digit * 2 : digit;
    sum += doubled > 9 ? doubled - 9 : doubled;
  }
  return String((10 - (sum % 10)) % 10);
}
