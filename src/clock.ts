/**
 * The service's notion of "now". Everything that compares times (token expiry, the duplicate window,
 * rate-limit windows, retry schedules) reads it here, so tests can move time with vi.setSystemTime
 * instead of sleeping.
 */
export function now(): number {
  return Date.now();
}

const partsCache = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = partsCache.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    partsCache.set(timeZone, f);
  }
  return f;
}

/** Offset of the zone from UTC in minutes at the instant, read from the wall clock Intl gives. */
function zoneOffsetMinutes(ms: number, timeZone: string): number {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) parts[p.type] = p.value;
  const wall = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60000);
}

/**
 * Time-zone offsets change only at transitions, so the offset is read once per zone and quarter hour:
 * formatToParts is the most expensive step of presenting an application otherwise. A quarter hour is
 * cached only when its first and last second have the same offset (no zone changes twice within 15
 * minutes); one that holds a transition (most fall on a quarter hour, but America/St_Johns changed at
 * 00:01 until 2011) is marked, and its instants are read one by one. UTC needs no reading at all.
 */
const QUARTER_HOUR_MS = 15 * 60 * 1000;
const MIXED = Number.NaN;
const offsetCache = new Map<string, number>();

/** The offset of `timeZone` from UTC at the instant, in minutes. */
export function offsetAt(ms: number, timeZone: string): number {
  if (timeZone === "UTC") return 0;
  const quarter = Math.floor(ms / QUARTER_HOUR_MS);
  const key = `${timeZone}@${quarter}`;
  let offset = offsetCache.get(key);
  if (offset === undefined) {
    const start = quarter * QUARTER_HOUR_MS;
    const first = zoneOffsetMinutes(start, timeZone);
    offset = first === zoneOffsetMinutes(start + QUARTER_HOUR_MS - 1000, timeZone) ? first : MIXED;
    // Bounded: a long-lived isolate formatting many distant instants must not grow without end. The
    // oldest entry goes (a Map iterates in insertion order), so the current quarter hours stay.
    if (offsetCache.size >= 10_000) offsetCache.delete(offsetCache.keys().next().value!);
    offsetCache.set(key, offset);
  }
  return Number.isNaN(offset) ? zoneOffsetMinutes(ms, timeZone) : offset;
}

const two = (n: number) => String(n).padStart(2, "0");

function wallClock(ms: number, timeZone: string) {
  const offsetMinutes = offsetAt(ms, timeZone);
  // The instant shifted by the offset, read in UTC, is the wall clock of the zone.
  const wall = new Date(ms + offsetMinutes * 60000);
  return {
    date: `${String(wall.getUTCFullYear()).padStart(4, "0")}-${two(wall.getUTCMonth() + 1)}-${two(wall.getUTCDate())}`,
    time: `${two(wall.getUTCHours())}:${two(wall.getUTCMinutes())}:${two(wall.getUTCSeconds())}`,
    offsetMinutes,
  };
}

/** `YYYY-MM-DDThh:mm:ss±hh:mm` in the service time zone, no milliseconds (CONTRACT section 1). */
export function formatDateTime(ms: number, timeZone: string): string {
  const { date, time, offsetMinutes } = wallClock(ms, timeZone);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  const offset = `${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
  return `${date}T${time}${offset}`;
}

/** `YYYY-MM-DD` of the instant in the service time zone. */
export function formatDate(ms: number, timeZone: string): string {
  return wallClock(ms, timeZone).date;
}

/** Today in the service time zone (the date of the gateway's terms). */
export function today(timeZone: string): string {
  return formatDate(now(), timeZone);
}
