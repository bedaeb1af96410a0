import {
  bearerSecurity,
  failures,
  IdempotencyHeaders,
  jsonBodyOf,
  jsonContent,
  openApiRoute,
  type RouteDefinition,
} from "../../api";
import { eligibility } from "../../domain/decision";
import { FINANCING_TYPES } from "../../domain/financing-terms";
import { orRefuse } from "../../http/errors";
import { schema, z } from "../../lazy-schema";
import examples from "../examples.json";
import { Money } from "./schema";

const PrecheckRequest = schema(() =>
  z
    .object({
      totalPrice: Money().openapi({ description: "The order total the customer would finance" }),
      type: z
        .enum(FINANCING_TYPES)
        .optional()
        .openapi({ description: "Only this financing type (default: every type)" }),
      customer: z
        .object({ email: z.email("must be an e-mail address").max(254).optional() })
        .optional()
        .openapi({ description: "The customer, when known (the sandbox's e-mail scenarios apply)" }),
    })
    .openapi("PrecheckRequest"),
);

const PrecheckResult = schema(() =>
  z
    .object({
      offers: z.array(
        z.object({
          type: z.enum(FINANCING_TYPES),
          eligible: z
            .boolean()
            .openapi({ description: "Whether the decision would approve this total (the agreement given)" }),
          maxAmount: z.number().int().optional().openapi({
            description: "The highest total financed in this type and currency, minor units; absent when none is",
          }),
          reasons: z.array(z.string()).optional().openapi({
            description: "Why not, when not eligible: AMOUNT_OVER_LIMIT, NO_LIMIT_FOR_CURRENCY, SANDBOX_REJECT",
          }),
        }),
      ),
    })
    .openapi("PrecheckResult"),
);

const route = {
  operationId: "precheck",
  method: "post",
  path: "/financing/v1/precheck",
  tags: ["Applications"],
  summary: "Would this order be eligible?",
  description:
    "Before showing the financing option at checkout: what the decision would say of this total (and customer) for each financing type, or the one asked, by the same rules as the gateway's, the customer's agreement taken as given. Stores nothing and decides nothing: the decision is taken when the customer confirms. Rate-limited like every call.",
  security: bearerSecurity,
  request: () => ({ headers: IdempotencyHeaders(), body: jsonBodyOf(PrecheckRequest(), examples.precheckRequest) }),
  responses: () => ({
    200: jsonContent(PrecheckResult(), "The offers", examples.precheckResult),
    ...failures({ body: true, idempotent: true, lookup: false, invalid: ["NON_POSITIVE_TOTAL"] }),
  }),
} satisfies RouteDefinition;

export const precheck = openApiRoute(route, async (c) => {
  const { totalPrice, type, customer } = c.req.valid("json");
  const cfg = c.var.config;
  const offers = orRefuse(
    eligibility(
      {
        amount: totalPrice.amount,
        currency: totalPrice.currency,
        types: type ? [type] : FINANCING_TYPES,
        customerEmail: customer?.email,
      },
      cfg.DECISION_LIMITS,
      cfg.SANDBOX,
    ),
  );
  return c.json({ offers }, 200);
});
