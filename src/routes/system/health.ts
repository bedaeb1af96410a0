import { failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { everyShard } from "../../db/shards";
import { ApiError } from "../../http/errors";
import { z } from "../../lazy-schema";
import examples from "../examples.json";

const route = {
  operationId: "getHealth",
  method: "get",
  path: "/v1/health",
  tags: ["System"],
  security: [],
  summary: "Service health",
  description:
    "No token needed. 200 when every database answers (the directory and each shard), 503 (`service_unavailable`) otherwise.",
  responses: () => ({
    200: jsonContent(
      z.object({ status: z.literal("OK") }).openapi("Health"),
      "The service and its databases answer",
      examples.health,
    ),
    ...failures({ session: false, lookup: false }),
  }),
} satisfies RouteDefinition;

export const health = openApiRoute(route, async (c) => {
  try {
    await Promise.all(everyShard(c.env).map(({ binding }) => binding.prepare("SELECT 1").first()));
  } catch {
    throw new ApiError("service_unavailable", "a database does not answer", undefined, { "Retry-After": "5" });
  }
  return c.json({ status: "OK" as const }, 200);
});
