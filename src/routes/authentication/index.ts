import { login } from "./login";
import { logout } from "./logout";

/** The authentication group's routers (src/routes/groups.ts loads it on the first request to its paths). */
export const authenticationRoutes = [login, logout];
