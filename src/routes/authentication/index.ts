import { login } from "./login";
import { logout } from "./logout";

/** The authentication group's routers (`ROUTE_GROUPS` in src/app.ts loads it on the first request to its paths). */
export const authenticationRoutes = [login, logout];
