/**
 * Records every API write in the partner's audit log (src/domain/audit.ts): each POST or PUT under
 * /financing that reached its operation (a request refused before it, as unauthenticated or malformed,
 * did nothing to record), whatever its outcome, once: an answer repeated from an `Idempotency-Key` is the
 * first request's, recorded then. The actor is the API with the token's id; the key figures are what the
 * operation did (`auditFigures`, set by the write path: src/api/application-change.ts) or else what the
 * request asked. Written before the answer leaves, so an answered write is in the log.
 */
import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../env";
import { ApiError } from "./errors";

const APPLICATION_PATH = /^\/financing\/v1\/applications\/([^/]+)/;

/** The request's JSON body as the JSON body middleware left it; undefined when there is none to read. */
async function requestBody(cache: Record<string, unknown>): Promise<unknown> {
  try {
    return JSON.parse(await (cache.text as Promise<string>));
  } catch {
    return undefined;
  }
}

export const auditApiWrites = createMiddleware<HonoEnv>(async (c, next) => {
  if (c.req.method !== "POST" && c.req.method !== "PUT") return next();
  await next();
  const operation = c.get("operationId");
  const session = c.get("session");
  if (!operation || !session || c.res.headers.get("Idempotent-Replayed") === "true") return;
  // Loaded by the first write rather than at the Worker's start (the middleware chain is all it loads).
  const [{ figuresOfRequest, outcomeOf, READ_ONLY_POSTS, tokenId }, { recordAudit }] = await Promise.all([
    import("../domain/audit"),
    import("../db/audit-events"),
  ]);
  if (READ_ONLY_POSTS.has(operation)) return;
  const error = c.error instanceof ApiError ? c.error : undefined;
  const figures =
    c.get("auditFigures") ?? figuresOfRequest(await requestBody(c.req.bodyCache as Record<string, unknown>));
  const applicationId = figures.applicationId ?? APPLICATION_PATH.exec(c.req.path)?.[1];
  await recordAudit(
    c.var.db.client,
    session.partnerId,
    {
      ...figures,
      ...(applicationId ? { applicationId: applicationId.slice(0, 64) } : {}),
      operation,
      source: "API",
      actor: { type: "API", id: tokenId(session.tokenHash), name: null },
      address: c.req.header("CF-Connecting-IP") ?? null,
      outcome: outcomeOf(c.res.status),
      ...(c.res.status >= 400 ? { code: error?.errors?.[0]?.code ?? error?.error ?? String(c.res.status) } : {}),
    },
    Date.now(),
  );
});
