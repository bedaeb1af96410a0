import type { z } from "@hono/zod-openapi";
import { createRoute } from "@hono/zod-openapi";
import { formatDate, now } from "../../clock";
import { config } from "../../config";
import type { Aggregate } from "../../db/applications";
import { type StateAndReason, stateAfterLines } from "../../domain/application-state";
import type { Problem } from "../../domain/money";
import type { LinesChange, Outcome } from "../../domain/order-lines";
import type { Env } from "../../env";
import { ApiError, detail } from "../../http/errors";
import { bearerSecurity, jsonBodyOf, jsonContent, unprocessable, writeErrors } from "../../http/openapi";
import { ApplicationIdParam, OrderWithApplication } from "../applications/schema";

/** The route of an order operation: PUT with the application id, answering the order with applicationInfo. */
export function orderOperationRoute<T extends z.ZodType>(options: {
  path: string;
  summary: string;
  description: string;
  body: T;
}) {
  return createRoute({
    method: "put",
    path: `/financing/v1/applications/{applicationId}${options.path}`,
    tags: ["Orders"],
    summary: options.summary,
    description: options.description,
    security: bearerSecurity,
    request: { params: ApplicationIdParam, body: jsonBodyOf(options.body) },
    responses: {
      200: jsonContent(OrderWithApplication, "The order after the operation, with applicationInfo"),
      ...writeErrors,
      422: unprocessable,
    },
  });
}

/** Item problems are refusals of the business rules (422), with the attribute of the offending entry. */
export function refuse(problems: readonly Problem[]): never {
  const errors = problems.map((p) => detail(p.code, p.message, p.attribute));
  throw new ApiError(422, "unprocessable", errors[0]!.message, errors);
}

/**
 * The lines after an operation, or the 422 that explains why not; `nothingLeft` is the refusal when
 * a whole-order request finds no line it applies to.
 */
export function changedLines(outcome: Outcome<LinesChange>, nothingLeft: Problem): LinesChange {
  if (!outcome.ok) refuse(outcome.problems);
  if (outcome.value.updated.length === 0 && outcome.value.created.length === 0) refuse([nothingLeft]);
  return outcome.value;
}

export function nextState(current: Aggregate, lines: LinesChange): StateAndReason {
  return stateAfterLines(
    current.application,
    lines.lines.map((l) => l.state),
  );
}

/** Money in a request must be in the application's currency (one currency per application). */
export function assertCurrency(money: { currency: string } | undefined, current: Aggregate, attribute: string) {
  if (money && money.currency !== current.application.currency) {
    throw ApiError.badRequest([
      detail("CURRENCY_MISMATCH", `must be ${current.application.currency}, the application's currency`, attribute),
    ]);
  }
}

export function today(env: Env): string {
  return formatDate(now(), config(env).SERVICE_TIMEZONE);
}
