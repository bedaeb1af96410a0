import { cancelOrderItems } from "./cancel-items";
import { changeOrder } from "./change";
import { deliverOrder } from "./deliver";
import { returnOrder } from "./return";
import { sendOrder } from "./send";

/** The orders group's routers (`ROUTE_GROUPS` in src/app.ts loads it on the first request to its paths). */
export const orderRoutes = [changeOrder, cancelOrderItems, sendOrder, deliverOrder, returnOrder];
