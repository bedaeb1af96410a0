import { login } from "./login";
import { logout } from "./logout";

/**
 * The authentication group's operations: `ROUTE_GROUPS` in src/app.ts loads the group on the first request
 * to its paths, and each operation is built on the first request to it.
 */
export const authenticationRoutes = [login, logout];
