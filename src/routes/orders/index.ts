import { cancelOrderItems } from "./cancel-items";
import { changeOrder } from "./change";
import { deliverOrder } from "./deliver";
import { returnOrder } from "./return";
import { sendOrder } from "./send";

/**
 * The orders group's operations: `ROUTE_GROUPS` in src/app.ts loads the group on the first request
 * to its paths, and each operation is built on the first request to it.
 */
export const orderRoutes = [changeOrder, cancelOrderItems, sendOrder, deliverOrder, returnOrder];
