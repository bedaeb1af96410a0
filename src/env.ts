import type { Config, Env } from "./config";
import type { DatabaseHandle } from "./db/handle";
import type { AuditFigures } from "./domain/audit";
import type { WireProfile } from "./domain/wire-profile";

export interface Session {
  partnerId: string;
  tokenHash: string;
  /** The shapes the partner is answered in (src/wire), as its token was issued with. */
  wireProfile: WireProfile;
  /** The shard holding the partner's data (src/db/shards.ts): the request's database (`db`) is its. */
  shard: number;
}

/** What Hono's context carries: the bindings, and what the middleware learned about the request. */
export type HonoEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** The Worker's variables, parsed (src/config.ts): set first, read by everything after. */
    config: Config;
    /** Set by the session middleware when the bearer token is valid. */
    session?: Session;
    /** The D1 bookmark of the token's latest write (see rate-limit/read-your-writes.ts). */
    bookmark?: string | null;
    /** Why there is no session: no Authorization header, or a token that is not valid. */
    sessionProblem?: "missing" | "invalid";
    /** The request's database (src/db/handle.ts): set for every path that reads or writes it. */
    db: DatabaseHandle;
    /** The operation of the API the request reached (src/api/route.ts): what the audit log names (src/api/audit.ts). */
    operationId?: string;
    /** What the operation did, for the audit log (src/api/audit.ts); unset: what the request asked. */
    auditFigures?: AuditFigures;
    /** Set when the write's own batch appended its audit entry (src/api/application-change.ts). */
    audited?: boolean;
  };
};
