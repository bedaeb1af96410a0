import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../../env";
import { ApiError } from "../../http/errors";

/**
 * Outside the sandbox a sandbox operation does not exist: the same 404 as any unknown path, before the
 * body is validated (a malformed body must not tell a production client that the operation is there).
 */
export const sandboxOnly = createMiddleware<HonoEnv>(async (c, next) => {
  if (!c.var.config.SANDBOX) throw ApiError.notFound("route");
  await next();
});
