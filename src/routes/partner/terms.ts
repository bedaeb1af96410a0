import { bearerSecurity, failures, jsonContent, openApiRoute, type RouteDefinition } from "../../api";
import { session } from "../../auth/require-session";
import { partnerTerms } from "../../db/partners";
import { SETTLES_ON } from "../../domain/partner-terms";
import { ApiError } from "../../http/errors";
import { schema, z } from "../../lazy-schema";

const bp = (type: string) =>
  z
    .number()
    .int()
    .openapi({ description: `The fee on each ${type} sale, in basis points (250 = 2.5 %)` });

const PartnerTerms = schema(() =>
  z
    .object({
      settlesOn: z.enum(SETTLES_ON).openapi({
        description: "When items become payable: once SENT, or once DELIVERED (a return proves delivery)",
      }),
      feeBasisPoints: z.object({ DEFERRED_PAYMENT: bp("DEFERRED_PAYMENT"), PAY_IN_THREE: bp("PAY_IN_THREE") }),
      feeVatRate: z.number().int().openapi({ description: "The VAT on the fee, in percent" }),
      payoutCutoffHour: z
        .number()
        .int()
        .openapi({ description: "The hour each day's payout closes at, on `timeZone`'s clock" }),
      timeZone: z.string().openapi({ example: "Europe/Prague" }),
    })
    .openapi("PartnerTerms"),
);

const route = {
  operationId: "getPartnerTerms",
  method: "get",
  path: "/financing/v1/partner/terms",
  tags: ["Payouts"],
  summary: "Read your settlement terms",
  description:
    "Your agreement on settlement, as an operator set it: when your items become payable, the fee per financing type and the VAT on it, and when each day's payout closes. Each operation's entries take the terms in force when it runs.",
  security: bearerSecurity,
  responses: () => ({
    200: jsonContent(PartnerTerms(), "Your terms", {
      settlesOn: "SENT",
      feeBasisPoints: { DEFERRED_PAYMENT: 250, PAY_IN_THREE: 350 },
      feeVatRate: 21,
      payoutCutoffHour: 0,
      timeZone: "Europe/Prague",
    }),
    ...failures({ lookup: false }),
  }),
} satisfies RouteDefinition;

export const getPartnerTerms = openApiRoute(route, async (c) => {
  const terms = await partnerTerms(await c.var.db.orm(), session(c).partnerId);
  if (!terms) throw ApiError.notFound("partner");
  const { PAYOUT_CUTOFF_HOUR, SERVICE_TIMEZONE } = c.var.config;
  return c.json({ ...terms, payoutCutoffHour: PAYOUT_CUTOFF_HOUR, timeZone: SERVICE_TIMEZONE }, 200);
});
