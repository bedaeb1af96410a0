import type { D1Migration } from "cloudflare:test";
import type { Env as WorkerEnv } from "../src/config";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[];
      AUTH_PEPPER: string;
    }
  }
}

declare module "vitest" {
  /** Given by vitest.config.ts (`provide`). */
  export interface ProvidedContext {
    /** PROPERTY_SEED of the environment: empty for the fixed seed, a number, or "random". */
    propertySeed: string;
    /** The OpenAPI document as `npm run openapi` prints it, built once per run (test/support/openapi-document.ts). */
    openApiDocument: string;
  }
}
