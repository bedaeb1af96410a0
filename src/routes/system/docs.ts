import { Scalar } from "@scalar/hono-api-reference";
import type { HonoEnv } from "../../env";

/** Where the Worker's static assets serve the Scalar bundle (scripts/docs-assets.ts puts it there). */
export const SCALAR_SCRIPT = "/docs/scalar-api-reference.js";

/**
 * The page's settings. `agent` is understood by the bundle we serve (@scalar/api-reference 1.46)
 * but missing from the older types of the Hono middleware, hence the wider type.
 */
const configuration: Parameters<typeof Scalar<HonoEnv>>[0] & { agent: { disabled: boolean } } = {
  url: "/openapi.json",
  cdn: SCALAR_SCRIPT,
  pageTitle: "Financing Partner API — reference",
  withDefaultFonts: false,
  hideClientButton: true,
  // Twenty-odd operations: every one listed at once reads better than a tree to unfold.
  defaultOpenAllTags: true,
  // Scalar's AI agent asks its own service (proxy.scalar.com) for documents.
  agent: { disabled: true },
};

/**
 * `GET /docs`: the interactive reference (Scalar) of `/openapi.json`. Its script comes from this
 * Worker, not a CDN, it loads no web fonts and its agent is off, so the page works offline and makes
 * no request outside the service (the browser test refuses every other origin and checks that).
 */
export const docsPage = Scalar<HonoEnv>(configuration);
