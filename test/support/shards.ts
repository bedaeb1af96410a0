/**
 * The shards of the tests' runtime (wrangler.toml binds two: `DB`, the directory and shard 0, and
 * `SHARD_1`; src/db/shards.ts). Test partners alternate over them (test/support/api.ts, createPartner),
 * so a test that reads or changes its partner's rows directly asks here for the database that holds
 * them, rather than `env.DB`, which holds only the partners of shard 0 (and every partner's directory row).
 */
import { env } from "cloudflare:workers";
import { everyShard, shardBinding } from "../../src/db/shards";

/** Each shard's database, shard 0 first. */
export const shardDatabases = () => everyShard(env).map(({ binding }) => binding);

/** The database of the partner's shard: a TestPartner knows it; a bare id is looked up in the directory. */
export function dbOf(partner: { shard: number }): D1Database;
export function dbOf(partnerId: string): Promise<D1Database>;
export function dbOf(partner: { shard: number } | string): D1Database | Promise<D1Database> {
  if (typeof partner !== "string") return shardBinding(env, partner.shard);
  return env.DB.prepare("SELECT shard FROM partners WHERE id = ?")
    .bind(partner)
    .first<{ shard: number }>()
    .then((row) => {
      if (!row) throw new Error(`no partner ${partner} in the directory`);
      return shardBinding(env, row.shard);
    });
}

/**
 * The database holding the row of `table` whose `column` is `id` (an application, an event, a document,
 * a payout…); shard 0 when none does, so that a test of a missing row reads where it would be.
 */
export async function dbHolding(table: string, id: unknown, column = "id"): Promise<D1Database> {
  for (const binding of shardDatabases()) {
    const found = await binding.prepare(`SELECT 1 FROM ${table} WHERE ${column} = ? LIMIT 1`).bind(id).first();
    if (found) return binding;
  }
  return env.DB;
}

/** The database of the shard holding the application. */
export const dbOfApplication = (applicationId: string) => dbHolding("applications", applicationId);

/**
 * The sum over every shard of a statement answering one row of numbers (a COUNT, a SUM): what a test
 * counts across partners of both shards.
 */
export async function summedOverShards(sql: string, ...bind: unknown[]): Promise<Record<string, number>> {
  const total: Record<string, number> = {};
  for (const binding of shardDatabases()) {
    const row = await binding
      .prepare(sql)
      .bind(...bind)
      .first<Record<string, number | null>>();
    for (const [name, value] of Object.entries(row ?? {})) total[name] = (total[name] ?? 0) + (value ?? 0);
  }
  return total;
}

/** Every shard's rows of a statement, shard 0's first. */
export async function rowsOverShards<T>(sql: string, ...bind: unknown[]): Promise<T[]> {
  const rows: T[] = [];
  for (const binding of shardDatabases()) {
    rows.push(
      ...(
        await binding
          .prepare(sql)
          .bind(...bind)
          .all<T>()
      ).results,
    );
  }
  return rows;
}
