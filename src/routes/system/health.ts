import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../../http/errors";
import { ErrorSchema, jsonContent, router } from "../../http/openapi";

const route = createRoute({
  method: "get",
  path: "/v1/health",
  tags: ["System"],
  summary: "Service health",
  description: "No token needed. 200 when the database answers, 503 otherwise.",
  responses: {
    200: jsonContent(z.object({ status: z.literal("OK") }).openapi("Health"), "The service and its database answer"),
    503: jsonContent(ErrorSchema, "The database does not answer"),
  },
});

export const health = router().openapi(route, async (c) => {
  try {
    await c.env.DB.prepare("SELECT 1").first();
  } catch {
    throw new ApiError("service_unavailable", "the database does not answer");
  }
  return c.json({ status: "OK" as const }, 200);
});
