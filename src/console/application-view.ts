/**
 * What the console's page of one application shows, loaded and decided before anything is rendered
 * (./application.tsx renders it, section by section): the application with its lines, its latest
 * refunds and events with their latest delivery attempts, its money, and each action with the plan the
 * domain would make of it now, or the domain's reason why not.
 */
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Context } from "hono";
import { gatewayUrl } from "../auth/gateway-token";
import { session } from "../auth/require-session";
import { keysetPage } from "../collections/keyset";
import { applicationEvents, applicationNotificationsCollection } from "../collections/notifications";
import { applicationRefunds, refundsCollection } from "../collections/refunds";
import { loadAggregate } from "../db/application-reads";
import type { Aggregate } from "../db/applications";
import { aggregateOrArchived } from "../db/archive";
import { type AttemptRow, latestAttemptsOf } from "../db/events";
import type { EventRow, RefundRow } from "../db/schema";
import { type Ledger, ledgerOf, refundableAmount } from "../domain/ledger";
import { allows, needsRole } from "../domain/roles";
import type { HonoEnv } from "../env";
import { ACTIONS, type ActionName, type ConsoleAction, preview, refusalInWords } from "./actions";

/**
 * The latest events shown on the page (an application with more is read on from the notifications
 * page); their ids bind the attempts' statement, so they stay under D1's 100 parameters.
 */
export const EVENTS_SHOWN = 50;
/** The latest attempts shown per event, with how many there were in all. */
const ATTEMPTS_SHOWN = 5;
export const REFUNDS_SHOWN = 100;
/** The lines shown (an application holds up to 500): the API answers every one. */
export const LINES_SHOWN = 100;

/** The latest first, so the page holds the latest; it lists them in the order they happened. */
const latestFirst = (column: SQLiteColumn) => ({ sort: [{ name: "id", column, descending: true }], filter: [] });

/** An action as the page offers it: its form, or why the domain refuses it now. */
export type OfferedAction =
  | { name: ActionName; action: ConsoleAction; offered: true }
  | { name: ActionName; action: ConsoleAction; offered: false; why: string };

export interface ApplicationView {
  current: Aggregate;
  money: Ledger & { refundable: number };
  /** The customer's payment page: its link decides the application, so only roles that help customers see it. */
  gatewayUrl: string | null;
  /** Whether the signed-in role may send an event again. */
  mayResend: boolean;
  /** In the order they happened, the latest REFUNDS_SHOWN; `more` when earlier ones exist. */
  refunds: { rows: RefundRow[]; more: boolean };
  /** In the order they happened, the latest EVENTS_SHOWN, with their latest attempts and how many in all. */
  events: { rows: EventRow[]; more: boolean; attempts: AttemptRow[]; counts: Map<string, number> };
  actions: OfferedAction[];
  timeZone: string;
}

/** The page's view of the signed-in partner's application; null when it is not theirs, or none. */
export async function loadApplicationView(c: Context<HonoEnv>, applicationId: string): Promise<ApplicationView | null> {
  const db = await c.var.db.orm();
  const { partnerId } = session(c);
  const [found, refunds, events] = await Promise.all([
    loadAggregate(db.$client, partnerId, applicationId),
    keysetPage(db, refundsCollection, applicationRefunds(applicationId), {
      ...latestFirst(refundsCollection.sortable.id),
      limit: REFUNDS_SHOWN,
    }),
    keysetPage(db, applicationNotificationsCollection, applicationEvents(applicationId), {
      ...latestFirst(applicationNotificationsCollection.sortable.id),
      limit: EVENTS_SHOWN,
    }),
  ]);
  // The refunds and events were read by the application's id alone: shown only once it proved the partner's.
  if (!found || !refunds.ok || !events.ok) return null;
  // An archived application is shown as it was (its events are in the archive, not listed here); an
  // action on it brings it back first (src/applications/change-application.ts).
  const current = await aggregateOrArchived(c.env.ARCHIVE, found);
  const { attempts, counts } = await latestAttemptsOf(
    db,
    events.value.rows.map((e) => e.id),
    ATTEMPTS_SHOWN,
  );
  const cfg = c.var.config;
  const ledger = ledgerOf(current.application, current.lines);
  return {
    current,
    money: { ...ledger, refundable: refundableAmount(ledger) },
    gatewayUrl: allows(c.get("consoleUser").role, "customerLinks")
      ? await gatewayUrl(
          cfg.PUBLIC_BASE_URL ?? new URL(c.req.url).origin,
          cfg.AUTH_PEPPER,
          applicationId,
          c.var.db.shard,
        )
      : null,
    mayResend: allows(c.get("consoleUser").role, "resend"),
    refunds: { rows: [...refunds.value.rows].reverse(), more: refunds.value.hasMoreAfter },
    events: { rows: [...events.value.rows].reverse(), more: events.value.hasMoreAfter, attempts, counts },
    actions: offeredActions(c, current),
    timeZone: cfg.SERVICE_TIMEZONE,
  };
}

/**
 * Each action the role and the domain allow now, else the role it needs or the domain's reason in words;
 * extending only where a deadline applies.
 */
function offeredActions(c: Context<HonoEnv>, current: Aggregate): OfferedAction[] {
  const cfg = c.var.config;
  const { role } = c.get("consoleUser");
  return (Object.entries(ACTIONS) as [ActionName, ConsoleAction][])
    .filter(([name]) => name !== "extend" || current.application.expiresAt !== null)
    .map(([name, action]): OfferedAction => {
      if (!allows(role, name)) return { name, action, offered: false, why: needsRole(name, role) };
      const planner = action.planner(undefined, cfg);
      if (typeof planner === "string") return { name, action, offered: false, why: planner };
      const plan = preview(planner, current, cfg);
      return plan.ok
        ? { name, action, offered: true }
        : { name, action, offered: false, why: refusalInWords(plan.problems[0]!, current) };
    });
}
