import { eq } from "drizzle-orm";
import { refunds } from "../db/schema";
import type { Collection } from "./collection";

/** Refunds page in creation order (their id); no other sort or filter. */
export const refundsCollection = {
  table: refunds,
  id: refunds.id,
  idKey: "id",
  sortable: { id: refunds.id },
  filterable: {},
} satisfies Collection<typeof refunds>;

export const applicationRefunds = (applicationId: string) => eq(refunds.applicationId, applicationId);
