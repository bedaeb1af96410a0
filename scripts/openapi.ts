/**
 * `npm run openapi`: prints the OpenAPI document (the one `GET /openapi.json` serves, built from
 * the same zod schemas) for the npm script to store in generated/openapi.json, from which
 * openapi-typescript writes the client types in generated/api.d.ts. `npm test` lints the one and
 * type-checks examples/client-flow.ts against the other.
 *
 * It prints rather than writes so that it needs only what the Worker itself may use: it is
 * type-checked with src (workers types), not with the Node scripts.
 */
import { openApiDocument } from "../src/routes/system/openapi";

console.log(JSON.stringify(await openApiDocument(), null, 2));
