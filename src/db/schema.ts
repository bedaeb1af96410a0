/**
 * The one Drizzle schema. drizzle-kit generates `migrations/` from it; wrangler and the tests apply them.
 *
 * Conventions: ids are ULID-like strings (creation order = id order); money is integer minor units
 * with the currency kept once per application (the contract allows one currency per application);
 * timestamps are Unix milliseconds, formatted with the service time zone only on output.
 */
import { relations, sql } from "drizzle-orm";
import {
  check,
  index,
  integer,
  primaryKey,
  real,
  type SQLiteColumn,
  sqliteTable,
  sqliteView,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import type { MerchantUrls, OrderDetails } from "../domain/application-operations";
import { FINISHED_READY_REASONS, FINISHED_STATES } from "../domain/archive";
import type { Offer } from "../domain/offer";
import type { SettlesOn } from "../domain/partner-terms";
import type { PayoutStatus } from "../domain/payouts";
import type { SupportRefundLimits } from "../domain/roles";
import type { EntryType } from "../domain/settlement-entries";
import type { ShipmentItem, Tracking } from "../domain/shipments";
import type { WireProfile } from "../domain/wire-profile";

const createdAt = () => integer("created_at").notNull();

/** An application not archived (src/db/archive.ts): the condition of the list indexes. */
const live = (t: { archiveKey: SQLiteColumn }) => sql`${t.archiveKey} IS NULL`;

/** `('A', 'B')`: constant names of the domain, as a partial index's condition must hold them (no parameters). */
export const sqlList = (values: readonly string[]) => sql.raw(`(${values.map((v) => `'${v}'`).join(", ")})`);

/**
 * A partner. Its row in the directory (`DB`, src/db/shards.ts) is what logging in reads: its user name,
 * password hash, `shard` and wire profile. Its row in its shard is the whole partner, read by everything
 * else: for a partner of shard 0 the two are one row; a partner of another shard has both, the
 * directory's without its secrets.
 */
export const partners = sqliteTable(
  "partners",
  {
    id: text("id").primaryKey(),
    username: text("username").notNull().unique(),
    /** The shard holding the partner's data (src/db/shards.ts): 0 is the directory's own database. */
    shard: integer("shard").notNull().default(0),
    /** Shown to the customer on the gateway page. */
    displayName: text("display_name").notNull(),
    /** `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>` over HMAC(pepper, password). */
    passwordHash: text("password_hash").notNull(),
    /** AES-GCM ciphertext of the API key (needed in clear to sign notifications), key derived from the pepper. */
    apiKeyCiphertext: text("api_key_ciphertext").notNull(),
    /** AES-GCM ciphertext of the `whsec_` Standard Webhooks signing secret; null until one is created. */
    signingSecretCiphertext: text("signing_secret_ciphertext"),
    /** The secret before the last rotation, which still signs until `previousSigningSecretExpiresAt`. */
    previousSigningSecretCiphertext: text("previous_signing_secret_ciphertext"),
    previousSigningSecretExpiresAt: integer("previous_signing_secret_expires_at"),
    /** The one before that, when its overlap still ran at the last rotation (src/domain/signing-secrets.ts). */
    olderSigningSecretCiphertext: text("older_signing_secret_ciphertext"),
    olderSigningSecretExpiresAt: integer("older_signing_secret_expires_at"),
    /** What the partner's rows hold, in bytes (src/db/storage.ts). */
    storedBytes: integer("stored_bytes").notNull().default(0),
    /** What the partner's audit log holds, in bytes: counted against the quota beside `storedBytes`. */
    auditBytes: integer("audit_bytes").notNull().default(0),
    /** The partner's own storage quota in bytes; null: STORAGE_QUOTA_BYTES applies. An operator sets it. */
    storageQuotaBytes: integer("storage_quota_bytes"),
    /**
     * The agreement on settlement (CONTRACT 6b, src/domain/partner-terms.ts): when sales become payable,
     * the fee per financing type in basis points and the VAT on it in whole percent. An operator sets
     * them (`npm run partner:terms`); each operation's entries take the terms in force when it runs.
     */
    settlesOn: text("settles_on").$type<SettlesOn>().notNull().default("SENT"),
    feeBasisPointsDeferredPayment: integer("fee_bp_deferred_payment").notNull().default(250),
    feeBasisPointsPayInThree: integer("fee_bp_pay_in_three").notNull().default(350),
    feeVatRate: integer("fee_vat_rate").notNull().default(21),
    /** The last cutoff whose payouts were closed for the partner (src/settlement/payouts.ts): each is visited once a cutoff. */
    payoutsClosedUntil: integer("payouts_closed_until").notNull().default(0),
    /**
     * Set by the UPDATE that counts a write's growth: 1 when the growth stays within the quota. Its CHECK
     * fails the write's whole batch otherwise (src/db/storage.ts); a stored row always holds 1.
     */
    withinQuota: integer("within_quota").notNull().default(1),
    /**
     * The shapes of the partner's answers, errors and notifications (src/domain/wire-profile.ts): an operator
     * sets it (scripts/partner-terms.ts, which refuses any other value). A token carries the profile of its login.
     */
    wireProfile: text("wire_profile").$type<WireProfile>().notNull().default("DEFAULT"),
    /** The most SUPPORT people may refund at once, per currency (src/domain/roles.ts); an admin sets it. */
    supportRefundLimits: text("support_refund_limits", { mode: "json" }).$type<SupportRefundLimits>(),
    createdAt: createdAt(),
  },
  (t) => [check("partner_storage_quota", sql`${t.withinQuota} = 1`)],
);

/**
 * A partner's people in the console (src/domain/people.ts): each signs in with the partner's account
 * name, their e-mail, their password and a code of their authenticator app. Until they have set up their
 * sign-in through their one-time link, only the link's hash and its end are kept; then only the
 * password's hash and the authenticator's secret, sealed. Removing a person deletes the row (the audit
 * log keeps their e-mail).
 */
export const consolePeople = sqliteTable(
  "console_people",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    /** Lower case (src/domain/people.ts `personName`): the name the person signs in with. */
    email: text("email").notNull(),
    /** VIEWER, SUPPORT, FINANCE or ADMIN (src/domain/roles.ts). */
    role: text("role").notNull(),
    /** As partners' passwords: `pbkdf2-sha256$…` over HMAC(pepper, password); null until set up. */
    passwordHash: text("password_hash"),
    /** AES-GCM ciphertext of the TOTP secret (base32), key derived from the pepper; null until set up. */
    totpSecretCiphertext: text("totp_secret_ciphertext"),
    /** The last time step whose code signed in: a code is taken once (src/domain/totp.ts). */
    totpLastStep: integer("totp_last_step"),
    /** SHA-256 of the one-time setup token (the link shows the token once); null once used. */
    setupTokenHash: text("setup_token_hash"),
    setupExpiresAt: integer("setup_expires_at"),
    /** When the person last set up their sign-in; null while a setup is due. */
    activatedAt: integer("activated_at"),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("console_people_partner_email_idx").on(t.partnerId, t.email),
    uniqueIndex("console_people_setup_idx").on(t.setupTokenHash),
  ],
);

/**
 * The audit log (src/domain/audit.ts): one row per console action and API write, never changed (a
 * trigger of migration 0012 refuses every UPDATE), counted in the partner's storage usage. Its
 * partner's rows page by id (creation order) and are filtered on the indexes below.
 */
export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    occurredAt: integer("occurred_at").notNull(),
    /** CONSOLE, API or OPERATOR. */
    source: text("source").notNull(),
    /** PERSON, API, PARTNER_CREDENTIALS or OPERATOR; with the person's id and e-mail, or the token's id. */
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    actorName: text("actor_name"),
    /** The API's operationId, or the console's own action (signIn, addPerson, …). */
    operation: text("operation").notNull(),
    applicationId: text("application_id"),
    amount: integer("amount"),
    currency: text("currency"),
    reason: text("reason"),
    subject: text("subject"),
    /** The client's address as the edge saw it (CF-Connecting-IP); null where there is none. */
    address: text("address"),
    /** SUCCEEDED, REFUSED or FAILED, with the code that says why not. */
    outcome: text("outcome").notNull(),
    code: text("code"),
  },
  (t) => [
    index("audit_events_partner_id_idx").on(t.partnerId, t.id),
    index("audit_events_partner_occurred_idx").on(t.partnerId, t.occurredAt, t.id),
    index("audit_events_partner_operation_idx").on(t.partnerId, t.operation, t.id),
    index("audit_events_partner_actor_idx").on(t.partnerId, t.actorId, t.id),
    index("audit_events_partner_application_idx").on(t.partnerId, t.applicationId, t.id),
    index("audit_events_partner_outcome_idx").on(t.partnerId, t.outcome, t.id),
  ],
);

/** Only the SHA-256 of a token is stored; the raw token exists solely in the login response. */
export const accessTokens = sqliteTable(
  "access_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    expiresAt: integer("expires_at").notNull(),
    revokedAt: integer("revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("access_tokens_partner_idx").on(t.partnerId, t.expiresAt),
    // The scheduled purge of expired tokens (src/db/partners.ts) finds them here, not by a scan.
    index("access_tokens_expires_idx").on(t.expiresAt),
  ],
);

export const applications = sqliteTable(
  "applications",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    type: text("type").notNull(),
    state: text("state").notNull(),
    stateReason: text("state_reason").notNull(),
    agreementTermsAndConditions: integer("agreement_terms_and_conditions", { mode: "boolean" }).notNull(),
    /** Customer object as accepted (validated, unknown fields dropped). */
    customer: text("customer", { mode: "json" }).notNull(),
    /** Order fields that are not lines or totals: number, reservationDate, addresses, variableSymbols, deliveryCarrier, channel. */
    orderDetails: text("order_details", { mode: "json" }).$type<OrderDetails>().notNull(),
    merchantUrls: text("merchant_urls", { mode: "json" }).$type<MerchantUrls>().notNull(),
    // Columns below are denormalised from the order for filtering, sorting and the duplicate check.
    orderNumber: text("order_number").notNull(),
    customerEmail: text("customer_email").notNull(),
    /** Variable symbols joined by "," (digits only, so unambiguous) for the `variableSymbol` filter. */
    variableSymbols: text("variable_symbols").notNull(),
    currency: text("currency").notNull(),
    /** Financed total: the sum of the lines that are not cancelled (kept with every line change). */
    totalAmount: integer("total_amount").notNull(),
    /** Total at approval: the ceiling for order changes and the base of refunds. */
    approvedAmount: integer("approved_amount"),
    refundedAmount: integer("refunded_amount").notNull().default(0),
    decisionReasons: text("decision_reasons", { mode: "json" }).$type<string[]>(),
    decidedAt: integer("decided_at"),
    /** The offer the customer accepted at the gateway (order, total, terms), kept with the approval. */
    acceptedOffer: text("accepted_offer", { mode: "json" }).$type<Offer>(),
    /** The deadline that applies now (the customer's, or the authorization's): src/domain/deadlines.ts. */
    expiresAt: integer("expires_at"),
    /** When the AUTHORIZATION_EXPIRING reminder is due; null once sent (until an extension). */
    reminderAt: integer("reminder_at"),
    /** When a pending manual review settles, and to what. */
    reviewAt: integer("review_at"),
    reviewOutcome: text("review_outcome").$type<"APPROVE" | "REJECT">(),
    /** The earliest of the three: the scheduled sweep finds what is due through its index, never a scan. */
    nextDueAt: integer("next_due_at"),
    cancelReason: text("cancel_reason"),
    customCancelReason: text("custom_cancel_reason"),
    /**
     * Fingerprint of (type, total, currency, order number, variable symbols) while the application is
     * inside the 20-minute duplicate window; cleared (NULL) when a later create finds it expired. The
     * unique index makes concurrent identical creates collide in the database instead of racing.
     */
    duplicateFingerprint: text("duplicate_fingerprint"),
    /**
     * What the application holds as JSON (its customer, order details, merchant URLs and lines:
     * src/domain/application-size.ts), kept with every write: what a list page adds up to stay within
     * the ceiling of an answer, and the base of the budget a write may not pass.
     */
    contentBytes: integer("content_bytes").notNull().default(0),
    /** Last event sequence written for this application; events take `eventSequence + 1`. */
    eventSequence: integer("event_sequence").notNull().default(0),
    /** Optimistic-concurrency version: every write is `UPDATE … WHERE version = ?` (see write_guard). */
    version: integer("version").notNull().default(0),
    /**
     * When the application last changed, on its own clock: what the archive's age is counted from
     * (src/domain/archive.ts). Every write sets it to its instant, as `updatedAt`, except a sandbox's
     * advance of the clock, which moves it back as it moves the deadlines closer.
     */
    idleSince: integer("idle_since").notNull().default(0),
    /**
     * The application's object in the ARCHIVE bucket while it is archived (src/db/archive.ts): the row is
     * then a tombstone (its lines, events and attempts are in the object, its customer and order details
     * emptied) and reads by id answer from the object. NULL while the application is live.
     */
    archiveKey: text("archive_key"),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("applications_duplicate_idx").on(t.partnerId, t.duplicateFingerprint),
    // Keyset paging: every sortable/filterable attribute led by the partner, ending with the id. Of live
    // applications only (lists cover those: src/collections/applications.ts, whose scope repeats the
    // condition so that SQLite uses them): a page never reads past archived ones, and an archived
    // application leaves these indexes. The order number's stays whole: the order look-up finds
    // archived orders too.
    index("applications_partner_id_idx").on(t.partnerId, t.id).where(live(t)),
    index("applications_partner_created_idx").on(t.partnerId, t.createdAt, t.id).where(live(t)),
    index("applications_partner_updated_idx").on(t.partnerId, t.updatedAt, t.id).where(live(t)),
    index("applications_partner_state_idx").on(t.partnerId, t.state, t.id).where(live(t)),
    index("applications_partner_reason_idx").on(t.partnerId, t.stateReason, t.id).where(live(t)),
    index("applications_partner_type_idx").on(t.partnerId, t.type, t.id).where(live(t)),
    index("applications_partner_order_number_idx").on(t.partnerId, t.orderNumber, t.id),
    index("applications_partner_total_idx").on(t.partnerId, t.totalAmount, t.id).where(live(t)),
    index("applications_partner_email_idx").on(t.partnerId, t.customerEmail, t.id).where(live(t)),
    index("applications_due_idx").on(t.nextDueAt, t.id).where(sql`${t.nextDueAt} IS NOT NULL`),
    // The archive's candidates (src/db/archive.ts), oldest idle first: only live, finished applications
    // with nothing due are in it, so finding a run's work never walks the live ones.
    index("applications_archivable_idx")
      .on(t.idleSince, t.id)
      .where(
        sql`${t.archiveKey} IS NULL AND ${t.nextDueAt} IS NULL AND (${t.state} IN ${sqlList(FINISHED_STATES)} OR ${t.stateReason} IN ${sqlList(FINISHED_READY_REASONS)})`,
      ),
  ],
);

/**
 * Each variable symbol of an application, as its own row: the API's `variableSymbol` filter and the
 * console's search find an order by any of its symbols through this key, where the comma-joined
 * `variable_symbols` can only be scanned. Keyed by
 * the partner first, so that a search reads the partner's own rows only. Written by a trigger on inserts
 * into applications (migrations/0008_variable_symbols_by_partner.sql; symbols never change after
 * creation), so every path that stores an application keeps it; the partner's usage counts the rows
 * (src/db/application-write.ts).
 */
export const applicationVariableSymbols = sqliteTable(
  "application_variable_symbols",
  {
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    variableSymbol: text("variable_symbol").notNull(),
    applicationId: text("application_id")
      .notNull()
      .references(() => applications.id),
  },
  (t) => [
    primaryKey({ columns: [t.partnerId, t.variableSymbol, t.applicationId] }),
    // An application's symbols without a scan of every partner's: what the archive stores of it and what
    // a partner's move copies again of an application that changed while it copied.
    index("application_variable_symbols_application_idx").on(t.applicationId),
  ],
);

/** One row per order line. A partial operation splits a line: the touched units become a new line. */
export const orderLines = sqliteTable(
  "order_lines",
  {
    id: text("id").primaryKey(),
    applicationId: text("application_id")
      .notNull()
      .references(() => applications.id),
    /** Display order; a split line takes the position just after its origin. */
    position: real("position").notNull(),
    code: text("code").notNull(),
    ean: text("ean"),
    name: text("name").notNull(),
    type: text("type").notNull(),
    variant: text("variant"),
    producer: text("producer"),
    categories: text("categories", { mode: "json" }).$type<string[]>(),
    productUrl: text("product_url"),
    quantity: integer("quantity").notNull(),
    unitPriceAmount: integer("unit_price_amount"),
    totalPriceAmount: integer("total_price_amount").notNull(),
    unitVatRate: real("unit_vat_rate"),
    unitVatAmount: integer("unit_vat_amount"),
    totalVatRate: real("total_vat_rate").notNull(),
    totalVatAmount: integer("total_vat_amount").notNull(),
    state: text("state").notNull(),
    sentDate: text("sent_date"),
    deliveryDate: text("delivery_date"),
    deliveryTrackingNumber: text("delivery_tracking_number"),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("order_lines_application_idx").on(t.applicationId, t.position)],
);

/**
 * Documents kept with an order (a return's credit note, a shipment's invoice): their metadata. The file,
 * at most 500 kB, is an object of the DOCUMENTS bucket (R2) named by `fileKey` (src/db/document-files.ts).
 * A document kept before files went to R2 holds its file here as base64 in `content` (`fileKey` NULL)
 * until the cron moves it (src/db/documents-to-r2.ts); once moved, as for every newer one, `content` is
 * empty. (`content` keeps its NOT NULL so that the migration only adds: no rebuild of a table of files.)
 */
export const documents = sqliteTable(
  "documents",
  {
    id: text("id").primaryKey(),
    applicationId: text("application_id")
      .notNull()
      .references(() => applications.id),
    type: text("type").notNull(),
    filename: text("filename").notNull(),
    mimeType: text("mime_type").notNull(),
    content: text("content").notNull(),
    description: text("description"),
    variableSymbol: text("variable_symbol"),
    /** The file's bytes (decoded). */
    size: integer("size").notNull(),
    createdAt: createdAt(),
    /** The file's object in the DOCUMENTS bucket; NULL while the file is still `content` here. */
    fileKey: text("file_key"),
  },
  (t) => [
    index("documents_application_idx").on(t.applicationId, t.id),
    // The files still to move, found without reading a row of the table (whose files fill overflow pages,
    // before `file_key`): the key is in the index so that it covers the query's condition.
    index("documents_in_d1_idx").on(t.id, t.fileKey).where(sql`${t.fileKey} IS NULL`),
  ],
);

/**
 * A document's file put to R2 whose row is not written yet: D1 has no transaction with R2, so a file is
 * put before the batch that writes its row, and that batch deletes this record (guarded: a record the
 * cron has given up, `abandoned`, fails the batch). A record the batch never deleted names a file no row
 * will ever name: the cron deletes the file, then the record (src/db/document-files.ts).
 */
export const documentUploads = sqliteTable("document_uploads", {
  fileKey: text("file_key").primaryKey(),
  startedAt: integer("started_at").notNull(),
  abandoned: integer("abandoned", { mode: "boolean" }).notNull().default(false),
});

export const refunds = sqliteTable(
  "refunds",
  {
    id: text("id").primaryKey(),
    applicationId: text("application_id")
      .notNull()
      .references(() => applications.id),
    /** `RETURN` when created by the return endpoint, `REFUND` when created directly. */
    origin: text("origin").notNull(),
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    reason: text("reason"),
    variableSymbol: text("variable_symbol"),
    createdAt: createdAt(),
  },
  (t) => [index("refunds_application_idx").on(t.applicationId, t.id)],
);

/**
 * What one send (or a deliver of goods not sent before) took out (CONTRACT 6b, src/domain/shipments.ts),
 * written in its operation's batch; only its tracking changes later (at most MAX_TRACKING entries).
 */
export const shipments = sqliteTable(
  "shipments",
  {
    id: text("id").primaryKey(),
    applicationId: text("application_id")
      .notNull()
      .references(() => applications.id),
    partnerId: text("partner_id").notNull(),
    reference: text("reference"),
    items: text("items", { mode: "json" }).$type<ShipmentItem[]>().notNull(),
    totalAmount: integer("total_amount").notNull(),
    currency: text("currency").notNull(),
    sentDate: text("sent_date").notNull(),
    deliveryCarrier: text("delivery_carrier"),
    tracking: text("tracking", { mode: "json" }).$type<Tracking[]>().notNull(),
    /** The order lines it took out: settlement names a sale's shipment by them. Never shown. */
    lineIds: text("line_ids", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("shipments_application_idx").on(t.applicationId, t.id)],
);

/**
 * The settlement ledger (CONTRACT 6b, src/domain/settlement-entries.ts): what each operation owes the
 * partner, written in the operation's own batch. Append-only: the one column ever updated is
 * `payout_id`, set when a payout takes the entry and cleared when that payout FAILED. Open (in no
 * payout yet) is exactly `payout_id IS NULL`, which the closing and the balance read through their
 * partial index.
 */
export const settlementEntries = sqliteTable(
  "settlement_entries",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    type: text("type").$type<EntryType>().notNull(),
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    applicationId: text("application_id")
      .notNull()
      .references(() => applications.id),
    orderNumber: text("order_number").notNull(),
    variableSymbols: text("variable_symbols", { mode: "json" }).$type<string[]>().notNull(),
    lineId: text("line_id"),
    shipmentId: text("shipment_id"),
    refundId: text("refund_id"),
    createdAt: createdAt(),
    payoutId: text("payout_id"),
  },
  (t) => [
    // The balance, a closing's sums and whether a partner has anything to close, per partner and currency.
    index("settlement_entries_open_idx").on(t.partnerId, t.currency, t.createdAt).where(sql`${t.payoutId} IS NULL`),
    index("settlement_entries_payout_idx").on(t.payoutId, t.id).where(sql`${t.payoutId} IS NOT NULL`),
    index("settlement_entries_application_idx").on(t.applicationId, t.id),
  ],
);

/**
 * A partner's bank transfer (CONTRACT 6b, src/domain/payouts.ts): its totals are what it took when it
 * closed and never change; only its status moves, once, from PENDING to PAID or FAILED.
 */
export const payouts = sqliteTable(
  "payouts",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    /** The variable symbol of the bank transfer: unique, so a statement line names one payout. */
    reference: text("reference").notNull().unique(),
    currency: text("currency").notNull(),
    periodEnd: integer("period_end").notNull(),
    status: text("status").$type<PayoutStatus>().notNull(),
    sales: integer("sales").notNull(),
    refunds: integer("refunds").notNull(),
    fees: integer("fees").notNull(),
    feeVat: integer("fee_vat").notNull(),
    net: integer("net").notNull(),
    entries: integer("entries").notNull(),
    createdAt: createdAt(),
    paidAt: integer("paid_at"),
    /**
     * When every application a PAID payout pays had been told (READY_PAID, src/settlement/paid.ts): until
     * then the cron keeps moving them, a page a run.
     */
    applicationsToldAt: integer("applications_told_at"),
  },
  (t) => [
    // The partner's payouts list, by id or by createdAt.
    index("payouts_partner_id_idx").on(t.partnerId, t.id),
    index("payouts_partner_created_idx").on(t.partnerId, t.createdAt, t.id),
    index("payouts_telling_idx").on(t.paidAt).where(sql`${t.status} = 'PAID' AND ${t.applicationsToldAt} IS NULL`),
    check("payouts_net_positive", sql`${t.net} > 0`),
  ],
);

/**
 * What each payout took when it closed, kept apart and append-only: an entry of a FAILED payout is
 * open again (its `payout_id` cleared), and its payout still reports it.
 */
export const payoutEntries = sqliteTable(
  "payout_entries",
  {
    payoutId: text("payout_id")
      .notNull()
      .references(() => payouts.id),
    entryId: text("entry_id")
      .notNull()
      .references(() => settlementEntries.id),
  },
  (t) => [primaryKey({ columns: [t.payoutId, t.entryId] })],
);

/** Outbox: one row per change of state or state reason, written in the same batch as the change. */
export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(),
    applicationId: text("application_id")
      .notNull()
      .references(() => applications.id),
    /** The application's partner, kept here so that the partner's events list pages on one index. */
    partnerId: text("partner_id").notNull(),
    type: text("type").notNull().default("APPLICATION_STATE_CHANGED"),
    sequence: integer("sequence").notNull(),
    state: text("state").notNull(),
    stateReason: text("state_reason").notNull(),
    /** The application's deadline when the event occurred, if one applied (in the notification). */
    expiresAt: integer("expires_at"),
    occurredAt: integer("occurred_at").notNull(),
    /** PENDING (not yet delivered), DELIVERED, FAILED (no 2xx within the schedule, 410 Gone, unsafe endpoint). */
    status: text("status").notNull().default("PENDING"),
    /** When the next attempt is due while PENDING; the sweep re-enqueues events overdue past it. */
    nextAttemptAt: integer("next_attempt_at"),
    /** Failed attempts so far: the position in the retry schedule. */
    failedAttempts: integer("failed_attempts").notNull().default(0),
    /**
     * A claim holds the event until then (src/db/events.ts, `claimDeliveries`): its mailbox sends it, no
     * other claim takes it, and the sweep leaves it alone.
     */
    deliveringUntil: integer("delivering_until"),
    /**
     * The code before the mailboxes (issue 45) wrote the endpoint's origin here, for its in-flight caps;
     * nothing writes it now. Kept so that a rollback to that code still runs; a later migration may drop it.
     */
    deliveringTo: text("delivering_to"),
    /** When the event was last sent again by a replay or resend (a DELIVERED one at most once an hour). */
    replayedAt: integer("replayed_at"),
    deliveredAt: integer("delivered_at"),
    /** Why the event is FAILED, for the partner. */
    failureReason: text("failure_reason"),
  },
  (t) => [
    uniqueIndex("events_application_sequence_idx").on(t.applicationId, t.sequence),
    index("events_application_id_idx").on(t.applicationId, t.id),
    index("events_due_idx").on(t.status, t.nextAttemptAt),
    // The partner's events list (CONTRACT 6): keyset paging by id, sorted or filtered by these.
    index("events_partner_id_idx").on(t.partnerId, t.id),
    index("events_partner_status_idx").on(t.partnerId, t.status, t.id),
    index("events_partner_occurred_idx").on(t.partnerId, t.occurredAt, t.id),
    // The claimed events per partner and, for the code before the mailboxes (rollback), per endpoint.
    index("events_partner_delivering_idx")
      .on(t.partnerId, t.deliveringUntil)
      .where(sql`${t.deliveringUntil} IS NOT NULL`),
    index("events_endpoint_delivering_idx")
      .on(t.deliveringTo, t.deliveringUntil)
      .where(sql`${t.deliveringUntil} IS NOT NULL`),
  ],
);

/**
 * The circuit breakers of the code before the mailboxes (issue 45), one per endpoint origin across
 * partners. No longer read or written: each partner's endpoint keeps its circuit in its mailbox
 * (src/mailbox/durable-object.ts). Kept so that a rollback to that code still runs; a later migration
 * may drop it.
 */
export const endpointCircuits = sqliteTable("endpoint_circuits", {
  endpoint: text("endpoint").primaryKey(),
  consecutiveFailures: integer("consecutive_failures").notNull(),
  openUntil: integer("open_until"),
  /** The last failure, for the delivery log. */
  lastFailure: text("last_failure").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const notificationAttempts = sqliteTable(
  "notification_attempts",
  {
    id: text("id").primaryKey(),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id),
    attemptedAt: integer("attempted_at").notNull(),
    httpStatus: integer("http_status"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
  },
  (t) => [index("notification_attempts_event_idx").on(t.eventId, t.id)],
);

/** The attempts an event keeps, its latest: recording one more deletes the oldest past this many. */
export const ATTEMPTS_KEPT_PER_EVENT = 50;

/**
 * Where an attempt's outcome is written (src/db/events.ts, `recordOutcome`): one INSERT into this view,
 * and its trigger `notification_outcomes_insert` (written by hand into migration 0010: drizzle-kit
 * knows no triggers) inserts the attempt, moves its event on (delivered, failed for good, or due again;
 * its lease ends) and deletes the event's attempts older than its latest ATTEMPTS_KEPT_PER_EVENT.
 * Three writes in one statement, all or none, so that a delivered attempt costs the D1 primary two
 * statements with its claim (docs/scaling.md), and an event resent again and again cannot grow the log
 * past a fixed size. Read, it is each attempt beside its event's delivery.
 */
export const notificationOutcomes = sqliteView("notification_outcomes", {
  id: text("id").notNull(),
  eventId: text("event_id").notNull(),
  attemptedAt: integer("attempted_at").notNull(),
  httpStatus: integer("http_status"),
  error: text("error"),
  durationMs: integer("duration_ms").notNull(),
  status: text("status").notNull(),
  nextAttemptAt: integer("next_attempt_at"),
  failedAttempts: integer("failed_attempts").notNull(),
  failureReason: text("failure_reason"),
  deliveredAt: integer("delivered_at"),
}).as(
  sql`select a.id, a.event_id, a.attempted_at, a.http_status, a.error, a.duration_ms, e.status, e.next_attempt_at, e.failed_attempts, e.failure_reason, e.delivered_at from notification_attempts a join events e on e.id = a.event_id`,
);

/** Stored first responses of POST/PUT requests carrying an Idempotency-Key, per partner, for 24 hours. */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    partnerId: text("partner_id").notNull(),
    key: text("key").notNull(),
    /** `METHOD path` the key was first used on. */
    target: text("target").notNull(),
    requestHash: text("request_hash").notNull(),
    /** NULL while the first request is still running. */
    responseStatus: integer("response_status"),
    /** While running, the claim holds until then; a claim whose request died (a crash) is taken over after it. */
    leaseUntil: integer("lease_until"),
    responseBody: text("response_body"),
    responseHeaders: text("response_headers", { mode: "json" }),
    /** What this row adds to the partner's storage usage (src/db/storage.ts), given back when it goes. */
    storedBytes: integer("stored_bytes").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.partnerId, t.key] }), index("idempotency_created_idx").on(t.createdAt)],
);

/**
 * Relations for Drizzle's relational queries: the application aggregate (application, lines,
 * documents) is read in ONE statement, with the children as JSON subqueries.
 */
export const applicationRelations = relations(applications, ({ one, many }) => ({
  lines: many(orderLines),
  documents: many(documents),
  shipments: many(shipments),
  partner: one(partners, { fields: [applications.partnerId], references: [partners.id] }),
}));
export const shipmentRelations = relations(shipments, ({ one }) => ({
  application: one(applications, { fields: [shipments.applicationId], references: [applications.id] }),
}));
export const orderLineRelations = relations(orderLines, ({ one }) => ({
  application: one(applications, { fields: [orderLines.applicationId], references: [applications.id] }),
}));
export const documentRelations = relations(documents, ({ one }) => ({
  application: one(applications, { fields: [documents.applicationId], references: [applications.id] }),
}));

export type PartnerRow = typeof partners.$inferSelect;
export type ApplicationRow = typeof applications.$inferSelect;
export type OrderLineRow = typeof orderLines.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type RefundRow = typeof refunds.$inferSelect;
export type ShipmentRow = typeof shipments.$inferSelect;
export type SettlementEntryRow = typeof settlementEntries.$inferSelect;
export type PayoutRow = typeof payouts.$inferSelect;
export type PersonRow = typeof consolePeople.$inferSelect;
export type AuditEventRow = typeof auditEvents.$inferSelect;

/**
 * A partner being moved off this shard or onto it, or moved off it (src/db/partner-move.ts). While its row
 * is here, the triggers of migration 0019 look at every write of the partner on this shard (a primary-key
 * lookup here; a partner without a row pays nothing more), by `state`:
 * - `copying`: the move copies the partner; each row written (inserted, updated, deleted) is named in
 *   `partner_move_changes`, which is what the move copies again once frozen;
 * - `frozen`: every write is refused with a message src/transient.ts reads as "not now": the request is
 *   answered 503 with Retry-After, and its retry reaches the partner's new shard;
 * - `moved`: the partner went to `to_shard`; the mark stays as a forwarding address for whatever still
 *   names this shard (a session, a link, a queue message): inserts and updates refused, deletes let through
 *   (the move deletes what the partner left here);
 * - `landing`: the move's own writes on the new shard, inside one batch that sets it and sets it back.
 */
export const partnerMoves = sqliteTable("partner_moves", {
  partnerId: text("partner_id").primaryKey(),
  toShard: integer("to_shard"),
  state: text("state").$type<"copying" | "frozen" | "moved" | "landing">().notNull().default("frozen"),
  startedAt: integer("started_at").notNull(),
});

/**
 * The rows of a partner written on this shard while its mark was `copying` (partner_moves), one per row
 * whatever the number of its writes: its table and its primary key's values as a JSON array. A row
 * without a `partner_id` (a line, an attempt, a payout's entry) is never written without its application,
 * event or payout, which stands for it. The move reads it once frozen and empties it.
 */
export const partnerMoveChanges = sqliteTable(
  "partner_move_changes",
  {
    partnerId: text("partner_id").notNull(),
    tableName: text("table_name").notNull(),
    rowKey: text("row_key").notNull(),
  },
  (t) => [primaryKey({ columns: [t.partnerId, t.tableName, t.rowKey] })],
);

/**
 * A move an operator asked for, run by the Worker's cron (src/scheduled.ts), where the sessions' objects
 * are within reach: `npm run partner:move -- --remote` writes it and waits for its `report` (JSON: the
 * move's, or `{ "error": … }`). In the directory only.
 */
export const partnerMoveRequests = sqliteTable("partner_move_requests", {
  partnerId: text("partner_id").primaryKey(),
  toShard: integer("to_shard").notNull(),
  requestedAt: integer("requested_at").notNull(),
  /** When a cron run took it: another run leaves it alone until MOVE_CLAIM_MS later (a run that died). */
  startedAt: integer("started_at"),
  finishedAt: integer("finished_at"),
  report: text("report"),
});

/**
 * D1 has no interactive transactions, only atomic batches. A write batch starts with a conditional
 * UPDATE of the application (`WHERE version = ?`) followed by `INSERT OR REPLACE INTO write_guard
 * VALUES (1, changes())`: when the update matched nothing, the CHECK fails, and the whole batch rolls
 * back, so no later statement needs its own guard. The table holds at most one row.
 */
export const writeGuard = sqliteTable(
  "write_guard",
  { id: integer("id").primaryKey(), ok: integer("ok").notNull() },
  (t) => [check("write_guard_ok", sql`${t.ok} = 1`)],
);
