/**
 * The databases partners are spread over (issue 49). The directory, binding `DB`, holds every partner's
 * identity (user name, password hash, its shard, its wire profile) and the access tokens; it is also
 * shard 0. Shard n > 0 is the binding `SHARD_<n>`. A partner's shard holds its full partner row (its
 * secrets, terms, quota and usage) and everything of its own: applications with their lines, documents'
 * metadata, refunds, events and attempts, shipments, settlement entries and payouts, idempotency keys,
 * its people and audit log. The shard is chosen when the partner is created and carried wherever a
 * request needs it: the token's session, the console's sessions, the gateway's link, the queue's
 * messages; what has no partner (the cron) goes over every shard.
 */
import type { Env } from "../config";

export type Bindings = Pick<Env, "DB"> & Partial<Record<`SHARD_${number}`, D1Database>>;

/** The binding of shard `shard`; throws for one this Worker is not bound to (a configuration error). */
export function shardBinding(env: Bindings, shard: number): D1Database {
  const binding = shard === 0 ? env.DB : env[`SHARD_${shard}`];
  if (!binding) throw new Error(`shard ${shard} is not bound: add SHARD_${shard} to wrangler.toml`);
  return binding;
}

/** Every shard the Worker is bound to, in order: shard 0 (`DB`), then `SHARD_1`, `SHARD_2`, … while bound. */
export function everyShard(env: Bindings): { shard: number; binding: D1Database }[] {
  const shards = [{ shard: 0, binding: env.DB }];
  for (let n = 1; env[`SHARD_${n}`]; n++) shards.push({ shard: n, binding: env[`SHARD_${n}`]! });
  return shards;
}
