/**
 * POST /console/applications/:applicationId/{refund,cancel,send,extend}, and resending one event.
 *
 * An action takes two posts. The first (the application page's form) asks: the domain plans it on the
 * application as it is, without writing, and either refuses in words or shows what confirming will do,
 * with a one-time token in the confirming form. The second confirms: it runs the same plan through
 * changeApplication (the API's one write path), once per token, through the API's idempotency store: a
 * double-click or a form sent again answers the first answer and does nothing more.
 */
import { Hono } from "hono";
import { changeServices } from "../api/application-change";
import { changeApplication } from "../applications/change-application";
import { session } from "../auth/require-session";
import { now } from "../clock";
import { loadAggregate } from "../db/application-reads";
import type { Aggregate } from "../db/applications";
import { aggregateOrArchived } from "../db/archive";
import { supportRefundLimitsOf } from "../db/people";
import { figuresOfPlan } from "../domain/audit";
import type { Plan } from "../domain/plan";
import type { Problem } from "../domain/result";
import { refundRefusal } from "../domain/roles";
import type { HonoEnv } from "../env";
import { RESEND_LIMIT, RESEND_WINDOW_SECONDS, resendEvent } from "../notifications/redelivery";
import { ACTIONS, isActionName, preview, refusalInWords } from "./actions";
import { APPLICATION_PATH, applicationPage, applicationPath } from "./application";
import { consoleEntry, recordConsoleAction, refusedWith } from "./audit";
import { errorPage } from "./errors";
import { onceForForm, onceToken } from "./forms";
import { FormTokens, page, signedIn } from "./layout";

function refusal(heading: string, problems: readonly Problem[], current: Aggregate) {
  return { kind: "refused" as const, heading, lines: problems.map((p) => refusalInWords(p, current)) };
}

export const applicationActions = new Hono<HonoEnv>()
  .post(`${APPLICATION_PATH}/:action{[a-z]+}`, async (c) => {
    const { applicationId, action: name } = c.req.param();
    if (!isActionName(name)) return errorPage(c, "not_found");
    const action = ACTIONS[name];
    const form = c.get("form");
    const cfg = c.var.config;
    const { partnerId } = session(c);
    const token = form.get("once");
    const planner = action.planner(form, cfg);
    if (typeof planner === "string") {
      return applicationPage(c, applicationId, { kind: "refused", heading: `${action.title}: ${planner}` }, 422);
    }
    const found = await loadAggregate(c.var.db.client, partnerId, applicationId);
    if (!found) return errorPage(c, "not_found");
    // The preview judges what the change would be: on an archived application, as it was archived.
    const current = await aggregateOrArchived(c.env.ARCHIVE, found);
    if (name === "refund") {
      // SUPPORT refunds up to the partner's limit (src/domain/roles.ts): judged on the amount asked.
      const plan = preview(planner, current, cfg);
      const refund = plan.ok ? plan.value.refund! : null;
      const limits = await supportRefundLimitsOf(await c.var.db.orm(), partnerId);
      const beyond = refund && refundRefusal(c.get("consoleUser").role, limits, refund.amount, refund.currency);
      if (beyond) {
        if (token !== null) {
          const figures = { amount: refund.amount, currency: refund.currency };
          await recordConsoleAction(c, { applicationId, ...figures, outcome: "REFUSED", code: "FORBIDDEN" });
        }
        const notice = { kind: "refused" as const, heading: `${action.title}: refused`, lines: [beyond] };
        return applicationPage(c, applicationId, notice, 403);
      }
    }

    if (token === null) {
      // Asking: what would happen now, or why it cannot.
      const plan = preview(planner, current, cfg);
      if (!plan.ok)
        return applicationPage(c, applicationId, refusal(`${action.title}: refused`, plan.problems, current), 422);
      return page(
        c,
        signedIn(c, action.confirm, "applications"),
        <section>
          <h1>{action.confirm}?</h1>
          {action.describe(form, current, plan.value, cfg).map((line) => (
            <p>{line}</p>
          ))}
          <form method="post" action={`${applicationPath(applicationId)}/${name}`}>
            <FormTokens csrf={c.get("csrfToken")} once={onceToken()} />
            {action.fields.map((field) => (
              <input type="hidden" name={field} value={form.get(field) ?? ""} />
            ))}
            <div class="actions">
              <button type="submit" class={action.danger ? "danger" : "primary"}>
                {action.confirm}
              </button>
              <a href={applicationPath(applicationId)}>Back without changing anything</a>
            </div>
          </form>
        </section>,
      );
    }

    return onceForForm(c, async () => {
      // Written, the change's entry lands in its own batch; refused, it is recorded on its own.
      const audit = (plan: Plan) => consoleEntry(c, { applicationId, ...figuresOfPlan(plan), outcome: "SUCCEEDED" });
      const result = await changeApplication(changeServices(c, audit), partnerId, applicationId, planner);
      if (result.outcome === "not_found") return errorPage(c, "not_found");
      if (result.outcome === "refused") {
        await recordConsoleAction(c, { applicationId, ...refusedWith(result.problems) });
        return applicationPage(
          c,
          applicationId,
          refusal(`${action.title}: refused`, result.problems, result.current),
          422,
        );
      }
      return c.redirect(`${applicationPath(applicationId)}?done=${name}`, 303);
    });
  })
  .post(`${APPLICATION_PATH}/notifications/:eventId/resend`, async (c) => {
    const { applicationId, eventId } = c.req.param();
    return onceForForm(c, async () => {
      const result = await resendEvent(c.env, c.var.db, session(c).partnerId, applicationId, eventId, now());
      if (result.outcome === "not_found") return errorPage(c, "not_found");
      const limited = result.outcome === "limited" || result.outcome === "too_soon";
      await recordConsoleAction(c, {
        applicationId,
        subject: `event ${eventId}`,
        ...(limited ? { outcome: "REFUSED", code: "RATE_LIMITED" } : { outcome: "SUCCEEDED" }),
      });
      if (result.outcome === "limited" || result.outcome === "too_soon") {
        c.header("Retry-After", String(result.retryAfter));
        const why =
          result.outcome === "limited"
            ? `At most ${RESEND_LIMIT} notifications can be sent again in ${RESEND_WINDOW_SECONDS} seconds. Try again in ${result.retryAfter} seconds, or replay many at once from the notifications page.`
            : `This notification was delivered and already sent again within the hour. It can be sent again in ${Math.ceil(result.retryAfter / 60)} minutes.`;
        return applicationPage(c, applicationId, { kind: "refused", heading: "Not sent again yet", lines: [why] }, 429);
      }
      return c.redirect(`${applicationPath(applicationId)}?done=resend#event-${eventId}`, 303);
    });
  });
