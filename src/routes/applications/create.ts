import { createRoute } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { sha256Hex } from "../../auth/crypto";
import { session } from "../../auth/require-session";
import { now } from "../../clock";
import { config } from "../../config";
import { type Aggregate, conflict, insertLines, isConstraintError, loadAggregate } from "../../db/applications";
import { database } from "../../db/client";
import { applications, events } from "../../db/schema";
import { orderConsistencyProblems } from "../../domain/money";
import { ApiError, detail, type ErrorDetail } from "../../http/errors";
import { bearerSecurity, jsonBodyOf, jsonContent, router, writeErrors } from "../../http/openapi";
import { newId } from "../../ids";
import { publish } from "../../notifications/outbox";
import { lineRows } from "./line-rows";
import { type OrderDetails, presentApplication, presentContext } from "./present";
import { Application, type CreateApplicationInput, CreateApplicationRequest } from "./schema";

/** Spec rule 1: an identical request within 20 minutes returns the earlier application. */
export const DUPLICATE_WINDOW_MS = 20 * 60 * 1000;

const route = createRoute({
  method: "post",
  path: "/financing/v1/applications",
  tags: ["Applications"],
  summary: "Create a financing application",
  description:
    "Creates the application in state PROCESSING / PROCESSING_REDIRECT_NEEDED and answers 201 with it, a `Location` header and `gatewayRedirectUrl`, where the customer is to be sent. A request matching one of the last 20 minutes on type, total amount and currency, order number and variable symbols (in order) answers 200 with that earlier application and creates nothing. Amounts must add up: see the 400 codes CURRENCY_MISMATCH, TOTAL_PRICE_MISMATCH, UNIT_PRICE_MISMATCH, VAT_MISMATCH, NEGATIVE_AMOUNT, NON_POSITIVE_TOTAL.",
  security: bearerSecurity,
  request: { body: jsonBodyOf(CreateApplicationRequest) },
  responses: {
    201: jsonContent(Application, "Application created"),
    200: jsonContent(Application, "Duplicate of an application created less than 20 minutes ago"),
    ...writeErrors,
  },
});

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Where HTTPS is required, the partner's URLs must be https and not point at a loopback host. */
function merchantUrlProblems(urls: CreateApplicationInput["merchantUrls"], requireHttps: boolean): ErrorDetail[] {
  if (!requireHttps) return [];
  return Object.entries(urls).flatMap(([name, value]) => {
    const url = new URL(value);
    return url.protocol !== "https:" || LOOPBACK.test(url.hostname)
      ? [detail("INVALID_VALUE", "must be an https URL of a public host", `merchantUrls.${name}`)]
      : [];
  });
}

export const createApplication = router().openapi(route, async (c) => {
  const input = c.req.valid("json");
  const { partnerId } = session(c);
  const problems = [
    ...orderConsistencyProblems(input.order).map((p) => detail(p.code, p.message, p.attribute)),
    ...merchantUrlProblems(input.merchantUrls, config(c.env).REQUIRE_HTTPS),
  ];
  if (problems.length > 0) throw ApiError.badRequest(problems);

  const db = database(c.env);
  const at = now();
  const { order, customer } = input;
  const currency = order.totalPrice.currency;
  const duplicateFingerprint = await sha256Hex(
    JSON.stringify([input.type, order.totalPrice.amount, currency, order.number, order.variableSymbols]),
  );
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
    currency,
    totalAmount: order.totalPrice.amount,
    approvedAmount: null,
    refundedAmount: 0,
    decisionReasons: null,
    decidedAt: null,
    cancelReason: null,
    customCancelReason: null,
    duplicateFingerprint,
    eventSequence: 1,
    version: 0,
    createdAt: at,
    updatedAt: at,
  };
  const lines = lineRows(id, input.order.items, at);
  const eventId = newId(at);

  const write = () =>
    db.batch([
      db.insert(applications).values(application),
      ...insertLines(db, lines),
      db.insert(events).values({
        id: eventId,
        applicationId: id,
        sequence: 1,
        state: application.state,
        stateReason: application.stateReason,
        occurredAt: at,
      }),
    ]);
  // The unique index on (partner, fingerprint) decides duplicates, also between concurrent creates. On a
  // collision the holder of the fingerprint is looked at: inside the window it is the answer; older, it
  // leaves the window (releases the fingerprint) and the insert is tried again. So the usual create is
  // one batch of inserts, and the rare collision pays the extra round trips.
  for (let round = 1; ; round++) {
    try {
      await write();
      break;
    } catch (error) {
      if (!isConstraintError(error, "applications.duplicate_fingerprint")) throw error;
      const twin = await db
        .select({ id: applications.id, createdAt: applications.createdAt })
        .from(applications)
        .where(and(eq(applications.partnerId, partnerId), eq(applications.duplicateFingerprint, duplicateFingerprint)))
        .get();
      if (twin && twin.createdAt > at - DUPLICATE_WINDOW_MS) {
        const existing = await loadAggregate(db, partnerId, twin.id);
        return c.json(await presentApplication(existing, presentContext(c)), 200);
      }
      if (round >= 3) throw conflict();
      if (twin) {
        await db
          .update(applications)
          .set({ duplicateFingerprint: null })
          .where(and(eq(applications.id, twin.id), eq(applications.duplicateFingerprint, duplicateFingerprint)));
      }
    }
  }

  c.executionCtx.waitUntil(publish(c.env, [eventId]));
  const view = await presentApplication({ application, lines, documents: [] }, presentContext(c));
  c.header("Location", `${presentContext(c).baseUrl}/financing/v1/applications/${id}`);
  return c.json(view, 201);
});
