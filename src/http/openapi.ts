import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { HonoEnv } from "../env";
import { ApiError, zodProblems } from "./errors";

/**
 * Every router is an OpenAPIHono built here, so that a validation failure of any route (body, query or
 * path) becomes the contract's 400 envelope with one `errors[]` entry per problem.
 */
export function router() {
  return new OpenAPIHono<HonoEnv>({
    defaultHook: (result) => {
      // @hono/zod-validator passes the raw input as `data`, so that missing values can be told apart.
      if (!result.success) throw ApiError.of(zodProblems(result.error, "data" in result ? result.data : undefined));
    },
  });
}

export const ErrorSchema = z
  .object({
    error: z.string().openapi({ example: "invalid_request" }),
    error_description: z.string(),
    requestId: z.string(),
    errors: z
      .array(
        z.object({
          code: z.string().openapi({ example: "INVALID_VALUE" }),
          message: z.string(),
          severity: z.literal("ERROR"),
          attribute: z.string().optional().openapi({ example: "order.items[0].totalPrice.amount" }),
        }),
      )
      .optional(),
  })
  .openapi("Error");

const error = (description: string) => ({ description, content: { "application/json": { schema: ErrorSchema } } });

/** The failures every partner route can answer, merged into each route's own responses. */
export const commonErrors = {
  400: error("Malformed request: `errors[]` names each problem"),
  401: error("Access token missing (`invalid_request`) or invalid/expired (`invalid_token`)"),
  404: error("Unknown resource, or one of another partner"),
  429: error("Call quota exceeded (`Retry-After` tells when to try again)"),
} as const;

/**
 * What every POST and PUT of the partner API can answer besides: the body limits, and 409 when an
 * Idempotency-Key is still in flight or concurrent writes to one application won every retry.
 */
export const writeErrors = {
  ...commonErrors,
  409: error("A retry with the same `Idempotency-Key` is still in flight, or concurrent writes won every retry"),
  413: error("Body over 10 MB"),
  415: error("A non-empty body that is not JSON"),
} as const;

export const unprocessable = error("A business rule refused the request: `errors[].code` says which");

export const bearerSecurity = [{ bearerAuth: [] }];

export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** Request bodies are always validated; an empty body validates as `{}`. */
export const jsonBodyOf = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});
