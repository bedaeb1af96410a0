import type { Context } from "hono";
import { gatewayTokenMatches, gatewayTokenShard } from "../auth/gateway-token";
import { applicationOwner } from "../db/application-reads";
import { shardHandle } from "../db/handle";
import { everyShard } from "../db/shards";
import type { HonoEnv } from "../env";

/** The gateway URL (see gatewayUrl): the token is the customer's only credential. */
export const GATEWAY_PATH = "/gateway/:applicationId/:token";

export interface GatewayOwner {
  partnerId: string;
  /** Shown to the customer as the merchant. */
  merchantName: string;
}

/**
 * The partner owning the application a gateway URL names, or null when the token does not match or
 * the application does not exist. The database is read only after the token matched, so the page
 * cannot be used to probe which application ids exist.
 */
export async function gatewayOwner(
  c: Context<HonoEnv>,
  applicationId: string,
  token: string,
): Promise<GatewayOwner | null> {
  if (!(await gatewayTokenMatches(c.var.config.AUTH_PEPPER, applicationId, token))) return null;
  // The token names the application's shard (src/auth/gateway-token.ts): the page's reads and writes go there.
  const shard = gatewayTokenShard(token);
  if (shard >= everyShard(c.env).length) return null;
  c.set("db", shardHandle(c.env, shard));
  const owner = await applicationOwner(c.var.db.client, applicationId);
  if (owner) return owner;
  // Its partner was moved to another shard (src/db/partner-move.ts) after the link was handed out: the
  // link still names the old one. Only a link whose token matched gets here, so this reveals nothing.
  for (const other of everyShard(c.env)) {
    if (other.shard === shard) continue;
    const moved = await applicationOwner(shardHandle(c.env, other.shard).client, applicationId);
    if (moved) {
      c.set("db", shardHandle(c.env, other.shard));
      return moved;
    }
  }
  return null;
}
