import { operation } from "../../http/lazy-routes";

/**
 * The authentication group's operations: `ROUTE_GROUPS` in src/app.ts loads the group on the first request
 * to its paths, and each operation is built on the first request to it.
 */
export const authenticationRoutes = [
  operation("POST", "/authentication/v1/partner", async () => (await import("./login")).login),
  operation("DELETE", "/authentication/v1/partner", async () => (await import("./logout")).logout),
];
