import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { loadPresented } from "../../db/application-reads";
import { presentedOrArchived } from "../../db/archive";
import { ApiError } from "../../http/errors";
import examples from "../examples.json";
import { presentApplication, presentContext } from "./present";
import { Application, ApplicationIdParam } from "./schema";

const route = {
  operationId: "getApplication",
  method: "get",
  path: "/financing/v1/applications/{applicationId}",
  tags: ["Applications"],
  summary: "Read an application",
  description:
    "The application with its state, state reason, customer, and order: lines with their states, the financed total, `refundedPrice` and `refundablePrice`, and documents. An application archived (finished, and idle for `ARCHIVE_AFTER_DAYS`) is read here as before, with the same body.",
  security: bearerSecurity,
  request: () => ({ params: ApplicationIdParam() }),
  responses: () => ({ 200: jsonContent(Application(), "The application", examples.application), ...failures() }),
} satisfies RouteDefinition;

export const getApplication = openApiRoute(route, async (c) => {
  const aggregate = await loadPresented(c.var.db.client, session(c).partnerId, c.req.valid("param").applicationId);
  if (!aggregate) throw ApiError.notFound("application");
  return c.json(await presentApplication(await presentedOrArchived(c.env.ARCHIVE, aggregate), presentContext(c)), 200);
});
