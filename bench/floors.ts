/**
 * The floor Workers (bench/floors/*.js), served by the same workerd on the same D1 database as the API.
 *
 * Two are fair floors, what a request of the API must cost at least: the one object call every
 * authenticated request makes plus that request's own D1 work, nothing else.
 * - getFair (do-get.js): RateLimiter.hit, then get's own statement (the application with its lines
 *   and documents as JSON subqueries, Drizzle's SQL).
 * - createFair (do-create.js): RateLimiter.hit, then create's own batch (the application row with all
 *   its indexes, three order lines, one outbox event, the storage counter, the audit entry and its
 *   bytes), then RateLimiter.remember (the write's bookmark).
 * get and the lists are taken against getFair, create, send and refund against createFair.
 *
 * createQueued (do-create.js with the queue binding) is createFair plus the queue send create makes for
 * its event: a reference beside create's target, since the local runtime's queue runs in the same
 * workerd and its CPU is counted, while in production it is the Queues service's.
 *
 * The others are the runtime's bare floors, for reference: a constant answer, one read by primary key,
 * one insert into an index-free scratch table, and the object call followed by that read.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH } from "./config";

export interface FloorDefinition {
  file: string;
  label: string;
  /** D1 round trips / statements · object calls per request. */
  cost: string;
  /** Whether it calls the API's rate-limit object (needs the RATE_LIMITER binding). */
  objectCall: boolean;
  /** A fair floor: what one API request must cost at least. */
  fair: boolean;
  /** Whether it has the API's notification queue (NOTIFICATIONS producer binding). */
  queue?: boolean;
}

export const FLOORS = {
  constant: { file: "constant.js", label: "constant", cost: "0 / 0 · 0", objectCall: false, fair: false },
  read: { file: "read.js", label: "D1 read by id", cost: "1 / 1 · 0", objectCall: false, fair: false },
  insert: { file: "insert.js", label: "D1 insert (no index)", cost: "1 / 1 · 0", objectCall: false, fair: false },
  readObject: { file: "read-object.js", label: "DO call + D1 read", cost: "1 / 1 · 1", objectCall: true, fair: false },
  getFair: { file: "do-get.js", label: "DO call + get's statement", cost: "1 / 1 · 1", objectCall: true, fair: true },
  createFair: {
    file: "do-create.js",
    label: "DO call + create's batch",
    cost: "1 / 6 · 2",
    objectCall: true,
    fair: true,
  },
  createQueued: {
    file: "do-create.js",
    label: "DO call + create's batch + queue send",
    cost: "1 / 6 · 2",
    objectCall: true,
    fair: false,
    queue: true,
  },
} satisfies Record<string, FloorDefinition>;

export type FloorKey = keyof typeof FLOORS;

export const floorName = (key: FloorKey) => `floor: ${FLOORS[key].label}`;

/** One D1 call as bench/capture.js records it. */
export type Captured = { sql: string; method: string } | { batch: string[] };

/** What the fair floors execute, read from their modules (the SQL lives in the floor files). */
export async function fairFloorStatements(): Promise<{ get: Captured[]; create: Captured[] }> {
  const load = (file: string) => import(pathToFileURL(path.join(BENCH, "floors", file)).href);
  const get = (await load(FLOORS.getFair.file)).default as { STATEMENT: string; METHOD: string };
  const create = (await load(FLOORS.createFair.file)).default as { BATCH: string[] };
  return { get: [{ sql: get.STATEMENT, method: get.METHOD }], create: [{ batch: create.BATCH }] };
}

/**
 * "" when the API ran exactly the floor's statements, else where they part: the first differing
 * character with some context on both sides (the API's full SQL is written to `capturedFile`).
 */
export function statementDrift(api: Captured[] | undefined, floor: Captured[], capturedFile: string): string {
  if (!api) return "the API's statements were not captured";
  const a = JSON.stringify(api);
  const f = JSON.stringify(floor);
  if (a === f) return "";
  let at = 0;
  while (at < a.length && a[at] === f[at]) at++;
  const around = (text: string) => `…${text.slice(Math.max(0, at - 60), at + 60)}…`;
  return `the API's SQL differs from the floor's at character ${at}: API ${around(a)} vs floor ${around(f)}; the API's full SQL is in ${capturedFile}`;
}
