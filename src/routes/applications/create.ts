import { createRoute } from "@hono/zod-openapi";
import { conflict } from "../../applications/operate";
import { sha256Hex } from "../../auth/crypto";
import { session } from "../../auth/require-session";
import { now } from "../../clock";
import { config, urlPolicy } from "../../config";
import { fingerprintHolder, insertApplication, releaseFingerprint } from "../../db/application-write";
import { type Aggregate, loadPresented } from "../../db/applications";
import { database } from "../../db/client";
import type { OrderDetails } from "../../db/schema";
import { STORAGE_QUOTA_PROBLEM, StorageQuotaExceeded } from "../../db/storage";
import { duplicateKey, withinDuplicateWindow } from "../../domain/duplicates";
import { ORDER_CONSISTENCY_CODES, orderConsistencyProblems } from "../../domain/money";
import { newLines } from "../../domain/order-lines";
import { merchantUrlProblems } from "../../domain/url-safety";
import { ApiError } from "../../http/errors";
import { bearerSecurity, failures, IdempotencyHeaders, jsonBodyOf, router, writeContent } from "../../http/openapi";
import { newId } from "../../ids";
import { publish } from "../../notifications/outbox";
import examples from "../examples.json";
import { presentApplication, presentContext } from "./present";
import { Application, CreateApplicationRequest } from "./schema";

const route = createRoute({
  operationId: "createApplication",
  method: "post",
  path: "/financing/v1/applications",
  tags: ["Applications"],
  summary: "Create a financing application",
  description:
    "Creates the application in state PROCESSING / PROCESSING_REDIRECT_NEEDED and answers 201 with it, a `Location` header and `gatewayRedirectUrl`, where the customer is to be sent. A request matching one of the last 20 minutes on type, total amount and currency, order number and variable symbols (in order) answers 200 with that earlier application and creates nothing. Amounts must add up: see the 400 codes CURRENCY_MISMATCH, TOTAL_PRICE_MISMATCH, UNIT_PRICE_MISMATCH, VAT_MISMATCH, NEGATIVE_AMOUNT, NON_POSITIVE_TOTAL.",
  security: bearerSecurity,
  request: {
    headers: IdempotencyHeaders,
    body: jsonBodyOf(CreateApplicationRequest, examples.createApplicationRequest),
  },
  responses: {
    201: writeContent(Application, "Application created", examples.createdApplication, ["Location"]),
    200: writeContent(
      Application,
      "Duplicate of an application created less than 20 minutes ago",
      examples.createdApplication,
    ),
    ...failures({
      body: true,
      idempotent: true,
      lookup: false,
      invalid: [...ORDER_CONSISTENCY_CODES],
    }),
  },
});

/**
 * Creates the application with its lines and first event in one batch. Duplicates (spec rule 1) are
 * settled by the unique index on (partner, fingerprint), also between concurrent creates: on a
 * collision the holder of the fingerprint is looked at; inside the window it is the answer, older it
 * leaves the window (releases the fingerprint) and the insert is tried again. So the usual create is
 * one batch, and only the rare collision pays the extra round trips.
 */
export const createApplication = router().openapi(route, async (c) => {
  const input = c.req.valid("json");
  const { partnerId } = session(c);
  const cfg = config(c.env);
  const problems = [
    ...orderConsistencyProblems(input.order),
    ...merchantUrlProblems(input.merchantUrls, urlPolicy(cfg)),
  ];
  if (problems.length > 0) throw ApiError.of(problems);

  const db = database(c.env);
  const at = now();
  const { order, customer } = input;
  const fingerprint = await sha256Hex(duplicateKey(input));
  const id = newId(at);
  const details: OrderDetails = {
    number: order.number,
    reservationDate: order.reservationDate === undefined ? undefined : Date.parse(order.reservationDate),
    addresses: order.addresses,
    variableSymbols: order.variableSymbols,
    deliveryCarrier: order.deliveryCarrier,
    channel: order.channel,
  };
  const application: Aggregate["application"] = {
    id,
    partnerId,
    type: input.type,
    state: "PROCESSING",
    stateReason: "PROCESSING_REDIRECT_NEEDED",
    agreementTermsAndConditions: input.agreementTermsAndConditions,
    customer,
    orderDetails: details,
    merchantUrls: input.merchantUrls,
    orderNumber: order.number,
    customerEmail: customer.email.toLowerCase(),
    variableSymbols: order.variableSymbols.join(","),
    currency: order.totalPrice.currency,
    totalAmount: order.totalPrice.amount,
    approvedAmount: null,
    refundedAmount: 0,
    decisionReasons: null,
    decidedAt: null,
    acceptedOffer: null,
    cancelReason: null,
    customCancelReason: null,
    duplicateFingerprint: fingerprint,
    eventSequence: 1,
    version: 0,
    createdAt: at,
    updatedAt: at,
  };
  const lines = newLines(order.items, () => newId(at));
  const event = {
    id: newId(at),
    sequence: 1,
    state: application.state,
    stateReason: application.stateReason,
    occurredAt: at,
  };

  for (let round = 1; ; round++) {
    let inserted: Awaited<ReturnType<typeof insertApplication>>;
    try {
      inserted = await insertApplication(db, application, lines, event, cfg.STORAGE_QUOTA_BYTES);
    } catch (error) {
      if (error instanceof StorageQuotaExceeded) throw ApiError.of([STORAGE_QUOTA_PROBLEM]);
      throw error;
    }
    if (inserted === "created") break;
    const twin = await fingerprintHolder(db, partnerId, fingerprint);
    if (twin && withinDuplicateWindow(twin.createdAt, at)) {
      const existing = await loadPresented(db, partnerId, twin.id);
      if (existing) return c.json(await presentApplication(existing, presentContext(c)), 200);
    }
    if (round >= 3) throw conflict();
    if (twin) await releaseFingerprint(db, twin.id, fingerprint);
  }

  c.executionCtx.waitUntil(publish(c.env, [{ eventId: event.id, due: event.occurredAt }]));
  const view = await presentApplication({ application, lines, documents: [] }, presentContext(c));
  c.header("Location", `${presentContext(c).baseUrl}/financing/v1/applications/${id}`);
  return c.json(view, 201);
});
