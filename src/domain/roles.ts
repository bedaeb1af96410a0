/**
 * Who may do what in the console: the one table of capabilities and the least role each needs. Roles
 * are ordered, each holding everything of the ones before it: VIEWER reads (everything but secrets),
 * SUPPORT also helps customers (refunds up to the partner's support limit), FINANCE also refunds any
 * amount and reads payouts, ADMIN also manages people and the signing secret, and replays. Every console
 * page and action names its capability (src/console/access.ts); this table alone says which role that is.
 */
import { formatMoney } from "./money";

export const ROLES = ["VIEWER", "SUPPORT", "FINANCE", "ADMIN"] as const;
export type Role = (typeof ROLES)[number];

export const CAPABILITIES = {
  /** Every page that reads: applications, their money and events, the delivery log. */
  read: "VIEWER",
  /** The person's own sign-in: their sessions, signing out (everywhere). */
  self: "VIEWER",
  /** What a customer can see and act on: the payment page (its link decides the application). */
  customerLinks: "SUPPORT",
  resend: "SUPPORT",
  cancel: "SUPPORT",
  extend: "SUPPORT",
  send: "SUPPORT",
  /** SUPPORT within the partner's support refund limit (`refundCeiling`), FINANCE and ADMIN any amount. */
  refund: "SUPPORT",
  /** Payouts, their entries and reports (the payouts pages plug into this capability). */
  payouts: "FINANCE",
  people: "ADMIN",
  rotate: "ADMIN",
  replay: "ADMIN",
  audit: "ADMIN",
} as const satisfies Record<string, Role>;
export type Capability = keyof typeof CAPABILITIES;

export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);

/** The least role a capability needs. */
export const roleFor = (capability: Capability): Role => CAPABILITIES[capability];

export const allows = (role: Role, capability: Capability): boolean =>
  ROLES.indexOf(role) >= ROLES.indexOf(roleFor(capability));

/** What SUPPORT may refund at once, per currency, in minor units (an admin sets it; none: SUPPORT refunds nothing). */
export type SupportRefundLimits = Partial<Record<string, number>>;

/**
 * The largest refund the role may make at once in `currency`: null when the role is not limited (FINANCE,
 * ADMIN), 0 when it may refund nothing. SUPPORT's ceiling is the partner's limit for that currency.
 */
export function refundCeiling(role: Role, limits: SupportRefundLimits, currency: string): number | null {
  if (!allows(role, "refund")) return 0;
  if (ROLES.indexOf(role) > ROLES.indexOf("SUPPORT")) return null;
  return limits[currency] ?? 0;
}

/** Why a role may not refund `amount`, in words naming what it needs; null when it may. */
export function refundRefusal(
  role: Role,
  limits: SupportRefundLimits,
  amount: number,
  currency: string,
): string | null {
  const ceiling = refundCeiling(role, limits, currency);
  if (ceiling === null || amount <= ceiling) return null;
  if (!allows(role, "refund")) return needsRole("refund", role);
  return ceiling === 0
    ? `Your role (SUPPORT) has no refund limit for ${currency} yet: an admin sets it on the People page, or a person with the FINANCE role refunds.`
    : `Your role (SUPPORT) refunds at most ${formatMoney(ceiling, currency)} at once: a person with the FINANCE role refunds more.`;
}

/** The refusal of a capability, naming the role it needs. */
export const needsRole = (capability: Capability, role: Role) =>
  `This needs the ${roleFor(capability)} role; yours is ${role}.`;
