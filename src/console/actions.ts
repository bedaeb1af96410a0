/**
 * What a person can do to an application from the console: refund, cancel, mark the whole order sent,
 * extend the authorization. Each is the domain's own plan (the same plan* the API's endpoints run),
 * asked through the same changeApplication: the console only reads the form and says it in words.
 */
import { type Planner, planContext } from "../applications/change-application";
import { now } from "../clock";
import { type Config, deadlinePolicy } from "../config";
import type { Aggregate } from "../db/applications";
import { planCancellation, planExtend } from "../domain/application-operations";
import { MAX_REASON_LENGTH } from "../domain/application-size";
import { CANCEL_REASONS, type CancelReason, DEFAULT_CANCEL_REASON } from "../domain/application-state";
import { ledgerOf, refundableAmount } from "../domain/ledger";
import { formatMoney } from "../domain/money";
import { planRefund, planSend } from "../domain/order-operations";
import type { Current, Plan } from "../domain/plan";
import type { Problem, Result } from "../domain/result";
import { parseAmount } from "./input";
import { shownTime } from "./layout";

export interface ConsoleAction {
  /** The heading of its form and of its confirmation. */
  title: string;
  /** The button that asks for confirmation, and the one that confirms. */
  ask: string;
  confirm: string;
  /** The fields of its form, posted again by the confirmation. */
  fields: readonly string[];
  /**
   * The plan for the form's fields, or what is wrong with them. Without a form: the plan that decides
   * whether the action is offered at all (its refusal says why not).
   */
  planner(form: URLSearchParams | undefined, cfg: Config): Planner | string;
  /** What confirming will do, in words, from the plan as it would be written now. */
  describe(form: URLSearchParams, current: Aggregate, plan: Plan, cfg: Config): string[];
  /** Said on the application's page after it was done. */
  done: string;
  /** Irreversible for the customer: the confirming button says so by its look. */
  danger?: boolean;
}

const money = (amount: number, current: Aggregate) => formatMoney(amount, current.application.currency);
const refundable = (current: Current) => refundableAmount(ledgerOf(current.application, current.lines));
const optionalText = (form: URLSearchParams, name: string) => form.get(name)?.trim() || undefined;

const refund: ConsoleAction = {
  title: "Refund",
  ask: "Refund…",
  confirm: "Confirm refund",
  fields: ["amount", "reason"],
  planner(form) {
    const amount = form ? parseAmount(form.get("amount") ?? "") : undefined;
    if (amount === null) return "Enter the amount to refund, such as 150.00.";
    if (amount === 0) return "Enter an amount of at least 0.01.";
    const reason = form ? optionalText(form, "reason") : undefined;
    if (reason !== undefined && reason.length > MAX_REASON_LENGTH)
      return `The reason may be at most ${MAX_REASON_LENGTH} characters.`;
    return (state, ctx) => {
      const { currency } = state.application;
      // Without a form: offered while anything is refundable (a form's amount is judged when it is sent).
      const totalPrice = { amount: amount ?? Math.max(1, refundable(state)), currency };
      return planRefund(state, { totalPrice, reason }, ctx);
    };
  },
  describe(form, current, plan) {
    const app = current.application;
    return [
      `Refund ${money(plan.refund!.amount, current)} of order ${app.orderDetails.number}.`,
      `Afterwards ${money(plan.application.refundedAmount, current)} will have been refunded in all.`,
      ...(optionalText(form, "reason") ? [`Reason: ${optionalText(form, "reason")}`] : []),
    ];
  },
  done: "The refund was created.",
};

/** The reason chosen, or the API's default when the form has none (an empty one included). */
const cancelReason = (form: URLSearchParams | undefined) => form?.get("reason") || DEFAULT_CANCEL_REASON;

const cancel: ConsoleAction = {
  title: "Cancel the application",
  ask: "Cancel application…",
  confirm: "Confirm cancellation",
  fields: ["reason", "note"],
  planner(form) {
    const reason = cancelReason(form);
    if (!(CANCEL_REASONS as readonly string[]).includes(reason)) return "Choose a reason from the list.";
    const customReason = form ? optionalText(form, "note") : undefined;
    if (customReason !== undefined && customReason.length > MAX_REASON_LENGTH)
      return `The note may be at most ${MAX_REASON_LENGTH} characters.`;
    return (state, ctx) => planCancellation(state, { reason: reason as CancelReason, customReason }, ctx);
  },
  describe(form, current) {
    return [
      `Cancel the application for order ${current.application.orderDetails.number}: nothing of it stays financed, and the customer is not charged.`,
      `Reason: ${cancelReason(form)}${optionalText(form, "note") ? ` (${optionalText(form, "note")})` : ""}`,
    ];
  },
  done: "The application was cancelled.",
  danger: true,
};

const send: ConsoleAction = {
  title: "Mark the whole order sent",
  ask: "Mark order sent…",
  confirm: "Confirm: the order is sent",
  fields: [],
  planner: () => (state, ctx) => planSend(state, {}, ctx),
  describe(_form, current, plan) {
    const unsent = current.lines.filter((l) => l.state === "PROCESSING").length;
    const sentDate = plan.lines?.lines.find((l) => l.state === "SENT")?.sentDate;
    return [
      `Mark every item of order ${current.application.orderDetails.number} not yet sent as sent today (${sentDate}): ${unsent} line${unsent === 1 ? "" : "s"}.`,
    ];
  },
  done: "The whole order is marked sent.",
};

const extend: ConsoleAction = {
  title: "Extend the authorization",
  ask: "Extend authorization…",
  confirm: "Confirm extension",
  fields: [],
  planner: () => planExtend,
  describe(_form, current, plan, cfg) {
    const shown = (at: number | null) => shownTime(at, cfg.SERVICE_TIMEZONE);
    return [
      `The goods not yet sent of order ${current.application.orderDetails.number} stay financed longer: until ${shown(plan.application.expiresAt)} instead of ${shown(current.application.expiresAt)}.`,
      `(An authorization lasts at most ${cfg.AUTHORIZATION_MAX_DAYS} days after approval.)`,
    ];
  },
  done: "The authorization was extended.",
};

export const ACTIONS = { refund, cancel, send, extend } as const;
export type ActionName = keyof typeof ACTIONS;

export const isActionName = (name: string): name is ActionName => Object.hasOwn(ACTIONS, name);

/** The plan as it would be written now, without writing it: what the console offers and confirms. */
export function preview(planner: Planner, current: Aggregate, cfg: Config): Result<Plan> {
  return planner(current, planContext(now(), deadlinePolicy(cfg), cfg.SERVICE_TIMEZONE));
}

/** A refusal of the domain in words a support person can repeat to a customer; its code follows. */
export function refusalInWords(problem: Problem, current: Aggregate): string {
  const words: Partial<Record<Problem["code"], string>> = {
    REFUND_LIMIT_EXCEEDED:
      refundable(current) > 0
        ? `The amount is more than can still be refunded: at most ${money(refundable(current), current)}.`
        : current.application.refundedAmount > 0
          ? "Nothing is left to refund."
          : "Nothing was sent yet: only goods that went out are refunded. Cancel items to reduce the order.",
    ORDER_ALREADY_SENT: "Goods of this order were already sent.",
    NOTHING_TO_EXTEND: "Every item was sent or cancelled: there is nothing left to extend.",
    EXTENSION_LIMIT_REACHED: "The authorization already runs as long as it may after approval.",
    AUTHORIZATION_EXPIRED: "The authorization has lapsed: goods not sent by then are no longer financed.",
    CONCURRENT_MODIFICATION: "Someone changed the application at the same moment. Please try again.",
    STORAGE_QUOTA_EXCEEDED: "Your account's storage is full. Please contact us.",
  };
  return `${words[problem.code] ?? problem.message} (${problem.code})`;
}
