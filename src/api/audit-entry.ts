/**
 * What the audit log says of an API write (src/domain/audit.ts): the API as the actor, with the token's
 * id, the operation the request reached, the client's address and the outcome by the answer's status.
 * Built here for the writes that append it to their own batch (a change: ./application-change.ts; a
 * create: src/routes/applications/create.ts), and for every other write, recorded once answered (./audit.ts).
 */
import type { Context } from "hono";
import { recordAudit } from "../db/audit-events";
import {
  type AuditEntry,
  type AuditFigures,
  figuresOfRequest,
  outcomeOf,
  READ_ONLY_POSTS,
  tokenId,
} from "../domain/audit";
import type { HonoEnv } from "../env";
import { ApiError } from "../http/errors";
import { logForRequest } from "../http/log";

const APPLICATION_PATH = /^\/financing\/v1\/applications\/([^/]+)/;

/** The entry of the request being served, with the figures of what it did (or asked), at `status`. */
export function apiAuditEntry(c: Context<HonoEnv>, figures: AuditFigures, status: number, code?: string): AuditEntry {
  const applicationId = figures.applicationId ?? APPLICATION_PATH.exec(c.req.path)?.[1];
  return {
    ...figures,
    ...(applicationId ? { applicationId: applicationId.slice(0, 64) } : {}),
    operation: c.get("operationId") ?? "",
    source: "API",
    actor: { type: "API", id: tokenId(c.get("session")!.tokenHash), name: null },
    address: c.req.header("CF-Connecting-IP") ?? null,
    outcome: outcomeOf(status),
    ...(code ? { code } : {}),
  };
}

/** The request's JSON body as the JSON body middleware left it; undefined when there is none to read. */
async function requestBody(cache: Record<string, unknown>): Promise<unknown> {
  try {
    return JSON.parse(await (cache.text as Promise<string>));
  } catch {
    return undefined;
  }
}

/**
 * Records the answered write, unless its batch did already (`audited`), it wrote nothing (a POST that
 * only reads), or it failed on our side (a 5xx did nothing: the service's log has it). Its work is done and answered: an entry that cannot be written is logged as an error, not
 * turned into a 500 that a client would retry (and a retry without an `Idempotency-Key` would do twice).
 */
export async function recordApiWrite(c: Context<HonoEnv>): Promise<void> {
  const operation = c.get("operationId");
  if (!operation || READ_ONLY_POSTS.has(operation) || c.get("audited") || c.res.status >= 500) return;
  const error = c.error instanceof ApiError ? c.error : undefined;
  const figures =
    c.get("auditFigures") ?? figuresOfRequest(await requestBody(c.req.bodyCache as Record<string, unknown>));
  const code = c.res.status >= 400 ? (error?.errors?.[0]?.code ?? error?.error ?? String(c.res.status)) : undefined;
  try {
    await recordAudit(
      c.var.db.client,
      c.get("session")!.partnerId,
      apiAuditEntry(c, figures, c.res.status, code),
      Date.now(),
    );
  } catch (failure) {
    logForRequest(c, "error", `audit entry of ${operation} not recorded`, failure);
  }
}
