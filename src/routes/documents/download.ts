import { bearerSecurity, failures, headers, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { openDocument } from "../../db/documents";
import { downloadHeaders, SERVED_MEDIA_TYPES } from "../../domain/documents";
import { ApiError } from "../../http/errors";
import { z } from "../../lazy-schema";
import { ApplicationIdParam } from "../applications/schema";

const route = {
  operationId: "downloadDocument",
  method: "get",
  path: "/financing/v1/applications/{applicationId}/documents/{documentId}",
  tags: ["Documents"],
  summary: "Download a return document",
  description: "The file as it was sent with a return, with its content type. Only the owning partner can read it.",
  security: bearerSecurity,
  request: () => ({
    params: ApplicationIdParam().extend({
      documentId: z
        .string()
        .max(64)
        .openapi({ param: { name: "documentId", in: "path" } }),
    }),
  }),
  responses: () => ({
    200: {
      description: "The file, in the media type of its extension (csv and txt as text/plain)",
      headers: headers(["Content-Disposition", "Cache-Control"]),
      content: Object.fromEntries(
        SERVED_MEDIA_TYPES.map((type) => [type, { schema: { type: "string" as const, format: "binary" } }]),
      ),
    },
    ...failures(),
  }),
} satisfies RouteDefinition;

export const downloadDocument = openApiRoute(route, async (c) => {
  const { applicationId, documentId } = c.req.valid("param");
  const { partnerId } = session(c);
  const document = await openDocument(await c.var.db.orm(), c.env.DOCUMENTS, partnerId, applicationId, documentId);
  if (!document) throw ApiError.notFound("document");
  return c.body(document.body, 200, downloadHeaders(document));
});
