import type { z } from "@hono/zod-openapi";
import {
  bearerSecurity,
  failures,
  IdempotencyHeaders,
  jsonBodyOf,
  type Refusals,
  type RouteDefinition,
  withRefusals,
  writeContent,
} from "../../api";
import { acceptDocument } from "../../domain/documents";
import type { KeptDocument } from "../../domain/order-operations";
import { ApiError } from "../../http/errors";
import type { Infer } from "../../lazy-schema";
import { ApplicationIdParam, OrderWithApplication } from "../applications/schema";
import examples from "../examples.json";
import type { ReturnDocument } from "./schema";

/**
 * What refuses every operation on an order's items: the application's state, an unknown item, a bad
 * quantity, a split past the lines an application may hold.
 */
export const ITEM_OPERATION_REFUSALS = {
  APPLICATION_NOT_READY: "",
  APPLICATION_REJECTED: "",
  APPLICATION_ALREADY_CANCELLED: "",
  ITEM_NOT_FOUND: "",
  INVALID_QUANTITY: "",
  LINE_LIMIT_REACHED: "a partial quantity would split a line past the 500 an application holds",
  APPLICATION_SIZE_LIMIT_REACHED:
    "a partial quantity would copy a line past the 256 KiB of content an application holds",
} satisfies Refusals;

/** What refuses an operation's document (kept with the order, as a return's is). */
export const DOCUMENT_REFUSALS = {
  FILE_TOO_LARGE: "",
  FILE_TYPE_NOT_ALLOWED: "",
  DOCUMENT_LIMIT_REACHED: "the application keeps 20 documents already",
} satisfies Refusals;

/** The request with its document's file accepted (type and size), or the 422 that refuses the file. */
export function withAcceptedDocument<T extends { document?: Infer<typeof ReturnDocument> | undefined }>(
  body: T,
): Omit<T, "document"> & { document?: KeptDocument } {
  const { document, ...rest } = body;
  if (!document) return rest;
  const accepted = acceptDocument(document.type, document.file);
  if (!accepted.ok) throw ApiError.of(accepted.problems);
  return { ...rest, document: { ...document, accepted: accepted.value } };
}

/** The route of an order operation: PUT with the application id, answering the order with applicationInfo. */
export function orderOperationRoute<T extends z.ZodType>(options: {
  operationId: string;
  path: string;
  summary: string;
  description: string;
  /** The request body's schema, built with the rest of the request on the operation's first request. */
  body: () => T;
  example: unknown;
  refusals: Refusals;
}) {
  return {
    operationId: options.operationId,
    method: "put",
    path: `/financing/v1/applications/{applicationId}${options.path}`,
    tags: ["Orders"],
    summary: options.summary,
    description: withRefusals(options.description, options.refusals),
    security: bearerSecurity,
    request: () => ({
      params: ApplicationIdParam(),
      headers: IdempotencyHeaders(),
      body: jsonBodyOf(options.body(), options.example),
    }),
    responses: () => ({
      200: writeContent(
        OrderWithApplication(),
        "The order after the operation, with applicationInfo",
        examples.sentOrder,
      ),
      ...failures({
        body: true,
        idempotent: true,
        guarded: true,
        refusals: options.refusals,
        invalid: ["CURRENCY_MISMATCH"],
      }),
    }),
  } satisfies RouteDefinition;
}
