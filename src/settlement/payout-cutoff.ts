/**
 * The payout cutoff (CONTRACT 6b): every day at PAYOUT_CUTOFF_HOUR:00 on the wall clock of
 * SERVICE_TIMEZONE, so a partner's "day" ends when its own midnight does, in winter and in summer
 * alike. Pure: the instant is an input. Outside src/domain only because it reads the zone's offsets
 * where the service's clock keeps them (src/clock.ts).
 *
 * On a day the clocks change the hour may be missing or come twice; as `Temporal`'s "compatible"
 * choice: a missing hour is taken where the clock jumps (02:00 that never came is the 03:00 that did),
 * and of an hour that comes twice the first, so that a day has exactly one cutoff.
 */
import { offsetAt } from "../clock";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The latest cutoff at or before `at`. */
export function lastCutoff(at: number, hour: number, timeZone: string): number {
  const day = localDay(at, timeZone);
  const today = cutoffOn(day, hour, timeZone);
  return today <= at ? today : cutoffOn(day - DAY, hour, timeZone);
}

/** The first cutoff after `at`. */
export function nextCutoff(at: number, hour: number, timeZone: string): number {
  const day = localDay(at, timeZone);
  const today = cutoffOn(day, hour, timeZone);
  return today > at ? today : cutoffOn(day + DAY, hour, timeZone);
}

/** The zone's calendar date at the instant, as the UTC midnight of that date (a calendar, no zone). */
function localDay(at: number, timeZone: string): number {
  const wall = at + offsetAt(at, timeZone) * MINUTE;
  return wall - (((wall % DAY) + DAY) % DAY);
}

/** The instant the zone's clock reads `hour`:00 on `day` (see above for the days clocks change). */
function cutoffOn(day: number, hour: number, timeZone: string): number {
  if (!Number.isInteger(hour) || hour < 0 || hour > 23) throw new RangeError(`a cutoff hour is 0 to 23, not ${hour}`);
  const wall = day + hour * HOUR;
  // The offsets in force around that day (a zone changes at most once in two days).
  const before = offsetAt(wall - DAY, timeZone);
  const after = offsetAt(wall + DAY, timeZone);
  const readingWall = [before, after]
    .map((offset) => wall - offset * MINUTE)
    .filter((instant) => instant + offsetAt(instant, timeZone) * MINUTE === wall);
  // None reads it: the clock jumped over the hour; take the instant the clock before the jump would have
  // read it (02:00 CET that never came is 03:00 CEST, where the clock jumped to).
  return readingWall.length > 0 ? Math.min(...readingWall) : wall - before * MINUTE;
}
