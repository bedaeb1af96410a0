/** GET /console/applications/:applicationId/documents/:documentId: a kept document, downloaded as the API serves it. */
import { Hono } from "hono";
import { session } from "../auth/require-session";
import { openDocument } from "../db/documents";
import { downloadHeaders } from "../domain/documents";
import type { HonoEnv } from "../env";
import { APPLICATION_PATH } from "./application";
import { errorPage } from "./errors";

export const documentDownload = new Hono<HonoEnv>().get(`${APPLICATION_PATH}/documents/:documentId`, async (c) => {
  const { applicationId, documentId } = c.req.param();
  const { partnerId } = session(c);
  const document = await openDocument(await c.var.db.orm(), c.env.DOCUMENTS, partnerId, applicationId, documentId);
  if (!document) return errorPage(c, "not_found");
  return c.body(document.body, 200, downloadHeaders(document));
});
