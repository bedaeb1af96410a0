/** GET /console/applications/:applicationId/documents/:documentId: a kept document, downloaded as the API serves it. */
import { Hono } from "hono";
import { fromBase64 } from "../auth/crypto";
import { session } from "../auth/require-session";
import { findDocument } from "../db/documents";
import { downloadHeaders } from "../domain/documents";
import type { HonoEnv } from "../env";
import { APPLICATION_PATH } from "./application";
import { errorPage } from "./errors";

export const documentDownload = new Hono<HonoEnv>().get(`${APPLICATION_PATH}/documents/:documentId`, async (c) => {
  const { applicationId, documentId } = c.req.param();
  const row = await findDocument(await c.var.db.orm(), session(c).partnerId, applicationId, documentId);
  if (!row) return errorPage(c, "not_found");
  return c.body(fromBase64(row.content), 200, downloadHeaders(row));
});
