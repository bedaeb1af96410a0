import { health } from "./health";

/** The system group's routers (src/routes/groups.ts loads it on the first request to its paths). */
export const systemRoutes = [health];
