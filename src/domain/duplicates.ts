/**
 * The duplicate check of spec rule 1 (CONTRACT 4): a create matching one of the same partner's on type,
 * total amount and currency, order number and variable symbols (same list, same order), made less than
 * 20 minutes before, answers that earlier application and creates nothing. Pure: no HTTP, no SQL.
 */
export const DUPLICATE_WINDOW_MS = 20 * 60 * 1000;

export interface DuplicateFacts {
  type: string;
  order: { totalPrice: { amount: number; currency: string }; number: string; variableSymbols: readonly string[] };
}

/** What two duplicate creates share, as one text (hashed into the stored fingerprint). */
export function duplicateKey(input: DuplicateFacts): string {
  const { totalPrice, number, variableSymbols } = input.order;
  return JSON.stringify([input.type, totalPrice.amount, totalPrice.currency, number, variableSymbols]);
}

/** Whether an earlier application created at `createdAt` still counts as the answer at `at`. */
export function withinDuplicateWindow(createdAt: number, at: number): boolean {
  return createdAt > at - DUPLICATE_WINDOW_MS;
}
