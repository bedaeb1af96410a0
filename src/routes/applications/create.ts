import {
  bearerSecurity,
  failures,
  IdempotencyHeaders,
  jsonBodyOf,
  openApiRoute,
  type Refusals,
  type RouteDefinition,
  withRefusals,
  writeContent,
} from "../../api";
import { apiAuditEntry } from "../../api/audit-entry";
import { CONCURRENT_MODIFICATION, planContext } from "../../applications/change-application";
import { sha256Hex } from "../../auth/crypto";
import { session } from "../../auth/require-session";
import { now } from "../../clock";
import { deadlinePolicy, urlPolicy } from "../../config";
import { createApplication as storeApplication } from "../../db/application-create";
import { loadPresented } from "../../db/application-reads";
import { auditStatements } from "../../db/audit-events";
import { STORAGE_QUOTA_PROBLEM, StorageQuotaExceeded } from "../../db/storage";
import { planCreate } from "../../domain/application-operations";
import { duplicateKey } from "../../domain/duplicates";
import { ORDER_CONSISTENCY_CODES } from "../../domain/money";
import { ApiError, orRefuse } from "../../http/errors";
import { publish } from "../../notifications/outbox";
import examples from "../examples.json";
import { presentApplication, presentContext } from "./present";
import { Application, CreateApplicationRequest } from "./schema";

const REFUSALS = {
  APPLICATION_SIZE_LIMIT_REACHED:
    "the order's content (items with their identifiers and texts, the customer, addresses) is over 256 KiB",
} satisfies Refusals;

const route = {
  operationId: "createApplication",
  method: "post",
  path: "/financing/v1/applications",
  tags: ["Applications"],
  summary: "Create a financing application",
  description: withRefusals(
    "Creates the application in state PROCESSING / PROCESSING_REDIRECT_NEEDED and answers 201 with it, a `Location` header and `gatewayRedirectUrl`, where the customer is to be sent. A request matching one of the last 20 minutes on type, total amount and currency, order number and variable symbols (in order) answers 200 with that earlier application and creates nothing. Amounts must add up: see the 400 codes CURRENCY_MISMATCH, TOTAL_PRICE_MISMATCH, UNIT_PRICE_MISMATCH, VAT_MISMATCH, NEGATIVE_AMOUNT, NON_POSITIVE_TOTAL.",
    REFUSALS,
  ),
  security: bearerSecurity,
  request: () => ({
    headers: IdempotencyHeaders(),
    body: jsonBodyOf(CreateApplicationRequest(), examples.createApplicationRequest),
  }),
  responses: () => ({
    201: writeContent(Application(), "Application created", examples.createdApplication, ["Location"]),
    200: writeContent(
      Application(),
      "Duplicate of an application created less than 20 minutes ago",
      examples.createdApplication,
    ),
    ...failures({
      body: true,
      idempotent: true,
      lookup: false,
      invalid: [...ORDER_CONSISTENCY_CODES],
      refusals: REFUSALS,
    }),
  }),
} satisfies RouteDefinition;

/**
 * Creates the application with its lines and first event in one batch, or answers the duplicate
 * (spec rule 1) that the write path found: the rules are the domain's (planCreate), the duplicate check
 * the database's (src/db/application-create.ts).
 */
export const createApplication = openApiRoute(route, async (c) => {
  const input = c.req.valid("json");
  const { partnerId } = session(c);
  const cfg = c.var.config;
  const at = now();
  const plan = orRefuse(
    planCreate(input, { ...planContext(at, deadlinePolicy(cfg), cfg.SERVICE_TIMEZONE), urlPolicy: urlPolicy(cfg) }),
  );
  const client = c.var.db.client;
  const owner = { partnerId, fingerprint: await sha256Hex(duplicateKey(input)), quota: cfg.STORAGE_QUOTA_BYTES };
  const total = plan.application;
  const figures = { applicationId: total.id, amount: total.totalAmount, currency: total.currency };
  // The audit entry rides in the create's batch (no round trip of its own); a duplicate's is written after.
  const audited = auditStatements(client, partnerId, apiAuditEntry(c, figures, 201), at).statements;
  let stored: Awaited<ReturnType<typeof storeApplication>>;
  try {
    stored = await storeApplication(client, plan, owner, audited);
  } catch (error) {
    if (error instanceof StorageQuotaExceeded) throw ApiError.of([STORAGE_QUOTA_PROBLEM]);
    throw error;
  }
  if (stored.outcome === "conflict") throw ApiError.of([CONCURRENT_MODIFICATION]);
  if (stored.outcome === "duplicate") {
    const existing = await loadPresented(client, partnerId, stored.id);
    if (!existing) throw ApiError.of([CONCURRENT_MODIFICATION]);
    c.set("auditFigures", { applicationId: stored.id, subject: "duplicate: the earlier application answered" });
    return c.json(await presentApplication(existing, presentContext(c)), 200);
  }

  const { event } = plan;
  c.set("audited", true);
  c.executionCtx.waitUntil(publish(c.env, c.var.db.shard, [{ eventId: event.id, due: event.occurredAt }]));
  const view = await presentApplication(
    { application: stored.row, lines: plan.lines, documents: [] },
    presentContext(c),
  );
  c.header("Location", `${presentContext(c).baseUrl}/financing/v1/applications/${stored.row.id}`);
  return c.json(view, 201);
});
