/**
 * Reading what people type into the console's forms: amounts as written, dates and times on the
 * service's wall clock (the one its pages show), and a list page's search as the API's list request.
 */
import { formatDateTime } from "../clock";
import type { Collection, FilterTerm } from "../collections/collection";
import { filterParameter } from "../collections/links";
import { parsePageRequest } from "../collections/query";

/**
 * "150", "150.5", "1 234,50" → minor units; null when it is not an amount of at most two decimals.
 * (Both currencies the service finances have two.)
 */
export function parseAmount(text: string): number | null {
  const match = /^(\d{1,13})(?:[.,](\d{1,2}))?$/.exec(text.replace(/[\s\u00a0\u202f]/g, ""));
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}

/** The offset of `timeZone` from UTC at the instant, in milliseconds. */
function offsetMs(at: number, timeZone: string): number {
  const offset = formatDateTime(at, timeZone).slice(19);
  const sign = offset.startsWith("-") ? -1 : 1;
  return sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6))) * 60_000;
}

/**
 * `YYYY-MM-DD` or `YYYY-MM-DDThh:mm` (what date and datetime-local inputs send) as an instant on the
 * wall clock of `timeZone`; null when it is neither. Read with the offset of the instant itself, so a
 * time near a daylight-saving change lands on the right side of it.
 */
export function wallClockInstant(text: string, timeZone: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?$/.exec(text);
  if (!match) return null;
  const [, year, month, day, hour = "0", minute = "0"] = match;
  const wall = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute));
  // Date.UTC rolls 2026-02-30 over into March: a date that is not one reads back differently.
  if (
    new Date(wall).toISOString().slice(0, 16) !==
    `${year}-${month}-${day}T${hour.padStart(2, "0")}:${minute.padStart(2, "0")}`
  ) {
    return null;
  }
  const guess = wall - offsetMs(wall, timeZone);
  return wall - offsetMs(guess, timeZone);
}

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The instant a day starts on the service's clock; null when the text is not a date. */
const startOfDay = (text: string, timeZone: string) => (DATE.test(text) ? wallClockInstant(text, timeZone) : null);

/** The instant a day ends on the service's clock (the next day's start), for "to" dates that include the day. */
export function endOfDay(text: string, timeZone: string): number | null {
  const start = startOfDay(text, timeZone);
  if (start === null) return null;
  // The next day's date, on the wall clock (a day is not always 24 hours long).
  const next = new Date(Date.parse(`${text}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
  return wallClockInstant(next, timeZone);
}

/**
 * A list form's "from" and "to" dates (both days included) as the API's filter terms on `attribute`,
 * written on the service's clock, or what is wrong with each, in words.
 */
export function dateRangeTerms(
  attribute: string,
  dates: { from: string; to: string },
  labels: { from: string; to: string },
  timeZone: string,
) {
  const terms: { name: string; operator: "gteq" | "lt"; values: string[] }[] = [];
  const problems: string[] = [];
  for (const [text, operator, label, instant] of [
    [dates.from, "gteq", labels.from, startOfDay],
    [dates.to, "lt", labels.to, endOfDay],
  ] as const) {
    if (!text) continue;
    const at = instant(text, timeZone);
    if (at === null) problems.push(`${label} must be a date such as 2026-11-23.`);
    else terms.push({ name: attribute, operator, values: [formatDateTime(at, timeZone)] });
  }
  return { terms, problems };
}

/**
 * A list page's request as the API reads one: the form's sort and filter terms become the API's `sort`
 * and `filter` parameters, read by the API's own parser (one set of rules for what a list accepts), and
 * the page's cursors come from its link.
 */
export function listRequest(
  collection: Collection,
  url: URL,
  path: string,
  list: { sort: string; terms: readonly Pick<FilterTerm, "name" | "operator" | "values">[]; limit: number },
) {
  const parameters = new URLSearchParams({ sort: list.sort });
  if (list.terms.length > 0) parameters.set("filter", filterParameter(list.terms));
  const cursor = (name: string) => url.searchParams.get(name) || undefined;
  return parsePageRequest(collection, `${url.origin}${path}?${parameters}`, {
    limit: list.limit,
    after: cursor("after"),
    before: cursor("before"),
  });
}
