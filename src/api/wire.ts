/**
 * Where an operation meets a wire profile (src/wire): for a partner of a profile other than DEFAULT, the
 * JSON body is read into this API's shapes before it is validated, and a successful JSON answer is
 * written in the profile's after the handler. Errors are written where they are answered (src/app.ts).
 * A DEFAULT partner's request (and one without a session) passes untouched, at the cost of a property read.
 */
import type { Context, Handler } from "hono";
import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../env";
import { wireOf } from "../wire";

const wireOfSession = (c: Context<HonoEnv>) => {
  const session = c.get("session");
  return session ? wireOf(session.wireProfile) : undefined;
};

/** Reads the request body of `operationId` in the session's profile into ours, before the validators. */
export const readInProfile = (operationId: string) =>
  createMiddleware<HonoEnv>(async (c, next) => {
    const wire = wireOfSession(c);
    // Every POST and PUT body was read into the cache as text by the JSON body middleware (src/http/json-body.ts).
    if (wire && (c.req.method === "POST" || c.req.method === "PUT")) {
      const read = (await wire).request(operationId, await c.req.json());
      (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(JSON.stringify(read));
    }
    await next();
  });

/** The handler of `operationId`, whose successful JSON answer is written in the session's profile. */
export function answerInProfile(operationId: string, handler: Handler<HonoEnv>): Handler<HonoEnv> {
  return async (c, next) => {
    const res = await handler(c, next);
    const wire = wireOfSession(c);
    if (!wire || !(res instanceof Response) || res.status >= 300) return res;
    if (!res.headers.get("Content-Type")?.startsWith("application/json")) return res;
    const answer = (await wire).answer(operationId, await res.json(), c.get("requestId"));
    return new Response(JSON.stringify(answer), res);
  };
}
