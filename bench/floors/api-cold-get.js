// The API with the applications group evaluated at startup: the module evaluation that a cold isolate's
// first GET of an application pays before it answers (the Worker's startup plus that request's group,
// zod included). bench/startup.ts builds it as the API is built (scripts/build.ts, this file as the
// entry) and profiles it beside the API and the one-route floor, with the API's flags.
import "../../src/routes/applications/index";

export * from "../../src/index";
export { default } from "../../src/index";
