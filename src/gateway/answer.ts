/**
 * The customer's answer written: the write path (Drizzle, the schema, the outbox) that only a submit
 * needs. src/gateway/submit.ts imports it on the first submit, so that showing the page, a cold isolate's
 * usual first gateway request, loads none of it (bench/tried.md).
 */
import type { Context } from "hono";
import { changeServices } from "../api/application-change";
import { changeApplication } from "../applications/change-application";
import { type CustomerAnswer, planCustomerAnswer } from "../domain/application-operations";
import type { HonoEnv } from "../env";

/** Confirms or cancels the partner's application as the customer answered (src/domain/application-operations.ts). */
export function answerOffer(c: Context<HonoEnv>, partnerId: string, applicationId: string, answer: CustomerAnswer) {
  return changeApplication(changeServices(c), partnerId, applicationId, (current, ctx) =>
    planCustomerAnswer(current, answer, ctx),
  );
}
