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

function wallClock(ms: number, timeZone: string) {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) parts[p.type] = p.value;
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    time: `${parts.hour}:${parts.minute}:${parts.second}`,
    // Offset = wall clock read as UTC minus the instant, rounded to whole minutes.
    offsetMinutes: Math.round(
      (Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!) -
        Math.floor(ms / 1000) * 1000) /
        60000,
    ),
  };
}

/** `YYYY-MM-DDThh:mm:ss±hh:mm` in the service time zone, no milliseconds (CONTRACT section 1). */
export function formatDateTime(ms: number, timeZone: string): string {
  const { date, time, offsetMinutes } = wallClock(ms, timeZone);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return `${date}T${time}${offset}`;
}

/** `YYYY-MM-DD` of the instant in the service time zone (default for sentDate/deliveryDate). */
export function formatDate(ms: number, timeZone: string): string {
  return wallClock(ms, timeZone).date;
}
