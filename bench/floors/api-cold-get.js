// The API with the applications group evaluated at startup: the module evaluation that a cold isolate's
// first GET of an application pays before it answers (the Worker's startup plus that request's group,
// zod included). bench/startup.ts profiles it beside the API and the one-route floor, with the API's
// wrangler.toml (bindings, flags) and this file as the entry.
import "../../src/routes/applications/index";

export * from "../../src/index";
export { default } from "../../src/index";
