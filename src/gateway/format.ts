const formatters = new Map<string, Intl.NumberFormat>();

/**
 * Integer minor units → a display amount with its currency, always two decimals (CONTRACT 1 keeps
 * money in minor units; the page is read by a customer, not parsed by a program).
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
    formatters.set(currency, formatter);
  }
  // amount / 100 is the double nearest the exact decimal, so rounding to two places prints it exactly.
  return formatter.format(amount / 100);
}
