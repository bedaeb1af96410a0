/**
 * A shipment's tracking from the application page (./application-settlement.tsx):
 * - POST …/shipments/:shipmentId/tracking adds an entry through the API's own service (addTracking,
 *   the one POST …/tracking runs), once per form; a refusal is said on the page in words, with the
 *   status the API would answer.
 * - GET …/shipments/:shipmentId/tracking/:n leads to the n-th entry's tracking page. The page links
 *   here rather than to the address itself: an address may be 2048 characters, and escaped in a link
 *   ten of them would take the page past the ceiling of an answer (src/domain/application-size.ts).
 *   The address passed the service's URL rule when it was added (https, a public host).
 */
import { Hono } from "hono";
import { session } from "../auth/require-session";
import { findShipment } from "../db/settlement";
import type { Problem } from "../domain/result";
import { MAX_TRACKING } from "../domain/shipment-tracking";
import type { HonoEnv } from "../env";
import { ApiError } from "../http/errors";
import { addTracking } from "../settlement/tracking";
import { APPLICATION_PATH, applicationPage, applicationPath } from "./application";
import { TRACKING_PATH } from "./application-settlement";
import { errorPage } from "./errors";
import { onceForForm } from "./forms";

const FIELD_NAMES: Record<string, string> = { number: "Tracking number", carrier: "Carrier", url: "Tracking page" };

/** The domain's refusal in words, naming the field it is about; its code follows. */
function refusalInWords(problem: Problem): string {
  if (problem.code === "TRACKING_LIMIT_REACHED") {
    return `The shipment holds ${MAX_TRACKING} tracking entries, the most one may. (TRACKING_LIMIT_REACHED)`;
  }
  const field = problem.attribute === undefined ? undefined : FIELD_NAMES[problem.attribute];
  return `${field ? `${field}: ` : ""}${problem.message} (${problem.code})`;
}

export const shipmentTracking = new Hono<HonoEnv>()
  .post(`${APPLICATION_PATH}${TRACKING_PATH}`, (c) => {
    const { applicationId, shipmentId } = c.req.param();
    const form = c.get("form");
    const field = (name: string) => form.get(name)?.trim() || undefined;
    return onceForForm(c, async () => {
      const result = await addTracking(
        await c.var.db.orm(),
        c.var.db.client,
        c.var.config.STORAGE_QUOTA_BYTES,
        { partnerId: session(c).partnerId, applicationId, shipmentId },
        { number: field("number") ?? "", carrier: field("carrier"), url: field("url") },
      );
      if (result.outcome === "not_found") return errorPage(c, "not_found");
      if (result.outcome === "refused") {
        const lines = result.problems.map(refusalInWords);
        // The status is the API's for the same problems: 400 for a field, 422 for a refusal, 409 for a race.
        const { status } = ApiError.of(result.problems);
        return applicationPage(c, applicationId, { kind: "refused", heading: "Tracking not added", lines }, status);
      }
      return c.redirect(`${applicationPath(applicationId)}?done=tracking#shipment-${shipmentId}`, 303);
    });
  })
  .get(`${APPLICATION_PATH}${TRACKING_PATH}/:entry{[0-9]+}`, async (c) => {
    const { applicationId, shipmentId, entry } = c.req.param();
    const shipment = await findShipment(await c.var.db.orm(), session(c).partnerId, applicationId, shipmentId);
    const url = shipment?.tracking[Number(entry)]?.url;
    if (!url) return errorPage(c, "not_found");
    return c.redirect(url, 303);
  });
