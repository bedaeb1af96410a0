/**
 * Records every API write in the partner's audit log (src/domain/audit.ts): each POST or PUT under
 * /financing that reached its operation (a request refused before it, as unauthenticated or malformed,
 * did nothing to record), whatever its outcome, once: a change of an application appends its entry in
 * its own batch (./application-change.ts), any other write is recorded here once answered (before the
 * answer leaves), and an answer repeated from an `Idempotency-Key` is the first request's, recorded then. Its module is part of the
 * middleware chain, so what records is loaded by the first write (./audit-entry.ts), not at the start.
 */
import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../env";

export const auditApiWrites = createMiddleware<HonoEnv>(async (c, next) => {
  if (c.req.method !== "POST" && c.req.method !== "PUT") return next();
  await next();
  if (!c.get("operationId") || !c.get("session") || c.res.headers.get("Idempotent-Replayed") === "true") return;
  await (await import("./audit-entry")).recordApiWrite(c);
});
