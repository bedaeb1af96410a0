import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../env";
import { logForRequest } from "../http/log";
import { limiter, tokenSubject } from "./client";

/**
 * The D1 session module, imported by the first partner request rather than at the Worker's startup: its
 * AsyncLocalStorage is the runtime's `node:async_hooks`, whose import was a measurable share of the
 * startup's CPU (bench/tried.md). A cold isolate's first request that uses the database imports it with its route
 * group and Drizzle anyway, so the import leaves the startup without adding to a first request. Kept
 * once loaded, so later requests do not wait on an import.
 */
let sessions: typeof import("../db/session") | undefined;

/**
 * Read replicas with read-your-writes, through D1's Sessions API. A partner's reads start from the
 * bookmark of its token's latest write, or anywhere (a nearby replica) when the token has written
 * nothing; writes start at the primary. After a successful write the session's bookmark goes to the
 * token's object before the answer leaves, so the token's next read, wherever it lands, sees the write.
 * The bookmark rides on the object call every request makes anyway (`hit`); only writes that moved it
 * make a second call. Per token: another token of the same partner reads from its own bookmark.
 */
export const readYourWrites = createMiddleware<HonoEnv>(async (c, next) => {
  const write = c.req.method !== "GET" && c.req.method !== "HEAD";
  const known = c.get("bookmark") ?? null;
  const { binding } = c.var.db;
  const d1 = binding.withSession(write ? "first-primary" : (known ?? "first-unconstrained"));
  sessions ??= await import("../db/session");
  await sessions.withD1Session(binding, d1, next, { reads: !write });
  const bookmark = d1.getBookmark();
  const session = c.get("session");
  if (!write || !session || !c.res.ok || bookmark === null || (known !== null && bookmark <= known)) return;
  try {
    await limiter(c.env, tokenSubject(session.tokenHash)).remember(bookmark, session.shard);
  } catch (error) {
    // The write stands; only this token's next read may come from a replica that has not seen it yet.
    logForRequest(c, "warn", "could not keep the write's bookmark; the next read may not see it", error);
  }
});
