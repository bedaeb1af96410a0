/**
 * What names a partner's shard in the Durable Objects, brought to its new shard when the partner is moved
 * (src/db/partner-move.ts, its `switched`): the sessions of its live access tokens (listed in the
 * directory) and of its people in the console (listed on the new shard), so that no client sees a 401 or
 * signs in again. A console session opened with the partner's API credentials is in no list: the console
 * ends it on its next request (src/console/session.ts) and the partner signs in again.
 */
import type { Env } from "../config";
import { movedTo } from "../db/partner-move";
import { shardBinding } from "../db/shards";
import { limiter, personSubject, tokenSubject } from "./client";

export async function moveSessions(env: Env, partnerId: string, shard: number, at: number): Promise<void> {
  const [tokens, people] = await Promise.all([
    env.DB.prepare(
      "SELECT token_hash FROM access_tokens WHERE partner_id = ? AND revoked_at IS NULL AND expires_at > ?",
    )
      .bind(partnerId, at)
      .all<{ token_hash: string }>(),
    shardBinding(env, shard)
      .prepare("SELECT id FROM console_people WHERE partner_id = ?")
      .bind(partnerId)
      .all<{ id: string }>(),
  ]);
  await Promise.all([
    ...tokens.results.map(({ token_hash }) => limiter(env, tokenSubject(token_hash)).moveSession(partnerId, shard)),
    ...people.results.map(({ id }) => limiter(env, personSubject(id)).movePersonSessions(partnerId, shard)),
  ]);
}

/**
 * A write of a token's partner refused on the session's shard because the partner is moving or has moved
 * off it (migration 0019): once it has moved, the token's session learns the new shard from the
 * forwarding mark, so that the retry the 503 asks for goes there. What the move itself could not reach
 * (a login racing its switch, a move run where the Worker's objects were out of reach) ends here.
 */
export async function followMove(env: Env, session: { partnerId: string; tokenHash: string; shard: number }) {
  const to = await movedTo(shardBinding(env, session.shard), session.partnerId);
  if (to !== null) await limiter(env, tokenSubject(session.tokenHash)).moveSession(session.partnerId, to);
}
