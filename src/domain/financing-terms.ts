/**
 * The kinds of financing and what the customer agrees to on the gateway page. Pure: no HTTP, no SQL.
 */

export const FINANCING_TYPES = ["DEFERRED_PAYMENT", "PAY_IN_THREE"] as const;

export interface Instalment {
  /** 1-based. */
  number: number;
  amount: number;
  /** `YYYY-MM-DD`. */
  dueDate: string;
}

/**
 * PAY_IN_THREE: three instalments summing exactly to `totalAmount`; each is `floor(total / 3)` and the
 * remainder goes one unit each to the first instalments (1000 → 334, 333, 333; 1001 → 334, 334, 333);
 * due `today`, today + 30 days, today + 60 days.
 * DEFERRED_PAYMENT: one instalment of the whole total due today + 30 days.
 * `today` is a calendar date `YYYY-MM-DD`; date arithmetic is on the calendar (no time zone involved).
 */
export function instalments(type: string, totalAmount: number, today: string): Instalment[] {
  switch (type) {
    case "PAY_IN_THREE": {
      const base = Math.floor(totalAmount / 3);
      const remainder = totalAmount - base * 3;
      return [0, 30, 60].map((days, i) => ({
        number: i + 1,
        amount: base + (i < remainder ? 1 : 0),
        dueDate: addDays(today, days),
      }));
    }
    case "DEFERRED_PAYMENT":
      return [{ number: 1, amount: totalAmount, dueDate: addDays(today, 30) }];
    default:
      // No terms to show for a type the service does not offer; validation refuses it long before.
      return [];
  }
}

// UTC is used only as a time-zone-free calendar: no offset or daylight-saving change can shift the day.
function addDays(date: string, days: number): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]) - 1, Number(match[3])] : [0, -1, 0];
  const start = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0–99 as 1900–1999.
  start.setUTCFullYear(year, month, day);
  if (start.getUTCMonth() !== month || start.getUTCDate() !== day) {
    throw new RangeError(`Not a calendar date YYYY-MM-DD: ${date}`);
  }
  start.setUTCDate(start.getUTCDate() + days);
  return start.toISOString().slice(0, 10);
}
