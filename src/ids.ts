// Crockford base32, as in ULID: ids sort lexicographically in creation order and carry 80 random bits.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A ULID: 48-bit millisecond time + 80 random bits, 26 characters. */
export function newId(time: number = Date.now()): string {
  let timePart = "";
  let t = time;
  for (let i = 0; i < 10; i++) {
    timePart = ALPHABET[t % 32] + timePart;
    t = Math.floor(t / 32);
  }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let randomPart = "";
  for (let i = 0; i < 16; i++) randomPart += ALPHABET[bytes[i]! % 32];
  return timePart + randomPart;
}
