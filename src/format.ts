/**
 * Money as the pages (the gateway's and the console's) show it.
 *
 * One formatter per currency, built once (building one costs far more than formatting). Only the
 * currencies we finance reach a page, but the cache does not rely on that: past 32 it drops the oldest.
 */
const formatters = new Map<string, Intl.NumberFormat>();
const MAX_FORMATTERS = 32;

/**
 * Integer minor units → a display amount with its currency, always two decimals (CONTRACT 1 keeps
 * money in minor units; a page is read by people, not parsed by a program).
 */
export function formatMoney(amount: number, currency: string): string {
  let formatter = formatters.get(currency);
  if (!formatter) {
    formatter = new Intl.NumberFormat("en-GB", {
      style: "currency",
      currency,
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.delete(formatters.keys().next().value!);
    formatters.set(currency, formatter);
  }
  // amount / 100 is the double nearest the exact decimal, so rounding to two places prints it exactly.
  return formatter.format(amount / 100);
}
