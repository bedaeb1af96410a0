/**
 * What the console writes to the audit log (src/domain/audit.ts): each action with who did it (the
 * signed-in person, or the partner's credentials), from which address, and its outcome. A change of an
 * application appends its entry in its own batch (`consoleEntry`, as the API's); any other action is
 * recorded once done. An action done once per form (./forms.ts `onceForForm`) is recorded inside that
 * work, so a double-click records once.
 */
import type { Context } from "hono";
import { now } from "../clock";
import { recordAudit } from "../db/audit-events";
import type { Actor, AuditEntry } from "../domain/audit";
import type { Problem } from "../domain/result";
import type { HonoEnv } from "../env";
import { logForRequest } from "../http/log";
import type { ConsoleUser } from "./session";

/** A person, by id and e-mail; the partner's credentials have neither. */
export const personActor = (id: string, email: string): Actor => ({ type: "PERSON", id, name: email });
export const CREDENTIALS_ACTOR: Actor = { type: "PARTNER_CREDENTIALS", id: null, name: null };

/** The audit log's actor of a console user. */
const actorOf = (user: ConsoleUser): Actor =>
  user.kind === "person" ? personActor(user.personId, user.email) : CREDENTIALS_ACTOR;

/** The client's address as the edge saw it (Cloudflare sets CF-Connecting-IP; local runs have none). */
export const clientAddress = (c: Context<HonoEnv>) => c.req.header("CF-Connecting-IP") ?? null;

type Recorded = Omit<AuditEntry, "source" | "actor" | "address" | "operation"> & {
  /** Default: the action posted, as the roles' table names it (./access.ts). */
  operation?: string;
  /** Default: the signed-in user (sign-in and setup name theirs). */
  actor?: Actor;
  partnerId?: string;
};

/** The entry of a console action of the signed-in user (or of `actor`, before a session). */
export function consoleEntry(c: Context<HonoEnv>, recorded: Omit<Recorded, "partnerId">): AuditEntry {
  const { actor, operation, ...entry } = recorded;
  return {
    ...entry,
    operation: operation ?? c.get("consoleOperation"),
    source: "CONSOLE",
    actor: actor ?? actorOf(c.get("consoleUser")),
    address: clientAddress(c),
  };
}

/**
 * Records a console action of the signed-in user (or of `actor` at `partnerId`, before a session). Its
 * work is done: an entry that cannot be written is logged as an error, not turned into a failure that
 * would invite doing the work again.
 */
export async function recordConsoleAction(c: Context<HonoEnv>, recorded: Recorded): Promise<void> {
  const { partnerId, ...rest } = recorded;
  const partner = partnerId ?? (c.get("consoleUser") as ConsoleUser | undefined)?.partnerId;
  if (!partner) throw new Error("a console action recorded without a partner");
  const entry = consoleEntry(c, rest);
  try {
    await recordAudit(c.var.db.client, partner, entry, now());
  } catch (failure) {
    logForRequest(c, "error", `audit entry of ${entry.operation} not recorded`, failure);
  }
}

/** The outcome of a refusal of the domain: the first problem's code. */
export const refusedWith = (problems: readonly Problem[]) => ({
  outcome: "REFUSED" as const,
  code: problems[0]?.code ?? "REFUSED",
});
