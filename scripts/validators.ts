/**
 * Prints generated/validators.ts: the request validators compiled ahead of time from the routes' zod
 * schemas (src/http/request-compiler.ts), for every documented route (scripts/validators-artefact.ts
 * writes it). Typed with src/ (the root tsconfig), as scripts/openapi.ts is.
 */
import { pathToFileURL } from "node:url";
import { validatorsModule } from "../src/http/request-compiler";
import { documentedRoutes } from "../src/routes/system/openapi";

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.stdout.write(await validatorsModule(await documentedRoutes()));
