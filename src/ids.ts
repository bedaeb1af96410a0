// Crockford base32, as in ULID: ids sort lexicographically in creation order and carry 80 random bits.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** The last id's time and random digits: ids of the same millisecond count up from it (ULID's monotonic order). */
let last: { time: number; digits: number[] } | undefined;

/**
 * A ULID: 48-bit millisecond time + 80 random bits, 26 characters. Ids made in the same millisecond by
 * this isolate follow each other in the order made (the random part counts up), so a plan's rows (a
 * sale, its fee, the fee's VAT) read back in the order the plan made them.
 */
export function newId(time: number = Date.now()): string {
  let timePart = "";
  let t = time;
  for (let i = 0; i < 10; i++) {
    timePart = ALPHABET[t % 32] + timePart;
    t = Math.floor(t / 32);
  }
  let digits: number[];
  if (last?.time === time && last.digits.some((d) => d < 31)) {
    digits = [...last.digits];
    let i = digits.length - 1;
    while (digits[i] === 31) digits[i--] = 0;
    digits[i]!++;
  } else {
    digits = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b % 32);
  }
  last = { time, digits };
  return timePart + digits.map((d) => ALPHABET[d]).join("");
}
