import { Hono } from "hono";
import type { HonoEnv } from "../../env";
import { docsPage } from "./docs";
import { openApiJson } from "./openapi-json";

/** The reference group: the document and its interactive page. */
export const reference = new Hono<HonoEnv>().get("/openapi.json", openApiJson).get("/docs", docsPage);
