import { drizzle } from "drizzle-orm/d1";
import type { Env } from "../env";

export type Database = ReturnType<typeof database>;

export function database(env: Env) {
  return drizzle(env.DB);
}
