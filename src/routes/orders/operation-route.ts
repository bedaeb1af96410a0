import type { z } from "@hono/zod-openapi";
import { createRoute } from "@hono/zod-openapi";
import { bearerSecurity, jsonBodyOf, jsonContent, unprocessable, writeErrors } from "../../http/openapi";
import { ApplicationIdParam, OrderWithApplication } from "../applications/schema";

/** The route of an order operation: PUT with the application id, answering the order with applicationInfo. */
export function orderOperationRoute<T extends z.ZodType>(options: {
  path: string;
  summary: string;
  description: string;
  body: T;
}) {
  return createRoute({
    method: "put",
    path: `/financing/v1/applications/{applicationId}${options.path}`,
    tags: ["Orders"],
    summary: options.summary,
    description: options.description,
    security: bearerSecurity,
    request: { params: ApplicationIdParam, body: jsonBodyOf(options.body) },
    responses: {
      200: jsonContent(OrderWithApplication, "The order after the operation, with applicationInfo"),
      ...writeErrors,
      422: unprocessable,
    },
  });
}
