/**
 * Seeds the benchmark database: partners, their applications with order lines and outbox events.
 *
 * Rows are generated inside SQLite (one recursive-CTE INSERT … SELECT per table and partner), so
 * 100,000 applications take seconds and no row travels through the Miniflare proxy. The columns mirror
 * `migrations/0000_init.sql` (and `src/db/schema.ts`) exactly; values are what the API itself writes:
 * ULID ids in creation order, JSON columns as the create route stores them, totals equal to the sum of
 * the lines, approved applications READY / READY_TO_SHIP with `approved_amount` = the total.
 *
 * The cache key of the seeded database is a hash of the migrations and of this file: any change here
 * reseeds.
 */
import { partnerSql } from "../scripts/lib";
import { newSigningSecret, randomSecret } from "../src/auth/crypto";

export interface SeedPartner {
  username: string;
  password: string;
  apiKey: string;
  applications: number;
}

/** Who the scenarios log in as. */
export const PARTNERS = {
  small: "bench-small",
  large: "bench-large",
  writer: "bench-writer",
} as const;

/** Several partners, so that every query is really scoped: two big ones, a writer and some neighbours. */
export const PARTNER_SIZES: [string, number][] = [
  [PARTNERS.small, 1_000],
  [PARTNERS.large, 100_000],
  [PARTNERS.writer, 0],
  ["bench-neighbour-1", 300],
  ["bench-neighbour-2", 300],
];

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** SQL for the 10-character ULID time part of the millisecond instant `t` (an SQL integer expression). */
function ulidTime(t: string): string {
  const parts: string[] = [];
  for (let k = 9; k >= 0; k--) parts.push(`substr('${ALPHABET}', ((${t}) / ${32 ** k}) % 32 + 1, 1)`);
  return parts.join(" || ");
}

/** SQL for the 16 random characters of a ULID. */
function ulidRandom(): string {
  return Array.from({ length: 16 }, () => `substr('${ALPHABET}', abs(random()) % 32 + 1, 1)`).join(" || ");
}

/** The per-application numbers, all derived from the sequence number `n` (so lines can recompute them). */
const AMOUNTS = {
  qty: (n: string) => `(1 + (${n}) % 2)`,
  unit: (n: string) => `(1000 + ((${n}) * 7919) % 150000)`,
  book: (n: string) => `(5000 + ((${n}) * 104729) % 30000)`,
  shipping: "9900",
};
const total = (n: string) => `(${AMOUNTS.qty(n)} * ${AMOUNTS.unit(n)} + ${AMOUNTS.book(n)} + ${AMOUNTS.shipping})`;

/**
 * The state of application `n`: 40 % PROCESSING, 20 % READY / READY_TO_SHIP (approved), 20 % READY /
 * READY_SHIPPED (approved, every item sent), 10 % REJECTED, 10 % CANCELLED. The ones to ship feed the
 * send scenario, the shipped ones the refund scenario (only what went out is refunded).
 */
const STATE = (n: string) =>
  `CASE WHEN (${n}) % 10 < 4 THEN 'PROCESSING' WHEN (${n}) % 10 < 8 THEN 'READY' WHEN (${n}) % 10 = 8 THEN 'REJECTED' ELSE 'CANCELLED' END`;
const REASON = (n: string) =>
  `CASE WHEN (${n}) % 10 < 4 THEN 'PROCESSING_REDIRECT_NEEDED' WHEN (${n}) % 10 < 6 THEN 'READY_TO_SHIP' WHEN (${n}) % 10 < 8 THEN 'READY_SHIPPED' WHEN (${n}) % 10 = 8 THEN 'REJECTED' ELSE 'CANCELLED_NOT_PAID' END`;

/** Applications one every `stepMs`, the last one an hour ago. */
function applicationsSql(partnerId: string, index: number, count: number): string {
  const stepMs = Math.floor((365 * 24 * 3600 * 1000) / count);
  const end = Date.now() - 3600 * 1000;
  const base = end - count * stepMs + index; // + index: partners never share a millisecond
  const tag = `P${index}`;
  return `
WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${count}),
rows AS (SELECT n, ${base} + n * ${stepMs} AS t, n % 10 AS k FROM seq)
INSERT INTO applications (id, partner_id, type, state, state_reason, agreement_terms_and_conditions, customer,
  order_details, merchant_urls, order_number, customer_email, variable_symbols, currency, total_amount,
  approved_amount, refunded_amount, decision_reasons, decided_at, cancel_reason, custom_cancel_reason,
  duplicate_fingerprint, event_sequence, version, created_at, updated_at)
SELECT
  ${ulidTime("t")} || ${ulidRandom()},
  '${partnerId}',
  CASE WHEN n % 3 = 0 THEN 'PAY_IN_THREE' ELSE 'DEFERRED_PAYMENT' END,
  ${STATE("n")},
  ${REASON("n")},
  1,
  json_object('fullName', 'Zákazník ' || n, 'email', 'customer' || n || '@example.com', 'phone', '+420777' || printf('%06d', n % 1000000),
    'fraudPreventionData', json_object('transactionsNumber', n % 40, 'cashlessTransactionsNumber', n % 30,
      'transactionsSum', json_object('amount', 1250000, 'currency', 'CZK'),
      'cashlessTransactionsSum', json_object('amount', 990000, 'currency', 'CZK'))),
  json_object('number', '${tag}-ORD-' || printf('%07d', n), 'reservationDate', t - 60000,
    'addresses', json_array(json_object('name', 'Zákazník ' || n, 'city', 'Praha', 'country', 'CZ',
      'streetAddress', 'Vinohradská', 'streetNumber', '' || (n % 200 + 1), 'zip', '12000', 'addressType', 'BILLING')),
    'variableSymbols', json_array('20' || printf('%08d', n)), 'deliveryCarrier', json_object('carrierId', 'PPL'),
    'channel', 'ESHOP'),
  json_object('approvedRedirect', 'https://shop.example.com/financing/approved?order=' || n,
    'rejectedRedirect', 'https://shop.example.com/financing/rejected',
    'notificationEndpoint', 'https://shop.example.com/financing/notifications'),
  '${tag}-ORD-' || printf('%07d', n),
  'customer' || n || '@example.com',
  '20' || printf('%08d', n),
  'CZK',
  ${total("n")},
  CASE WHEN k BETWEEN 4 AND 7 THEN ${total("n")} END,
  0,
  CASE WHEN k BETWEEN 4 AND 7 THEN '["WITHIN_LIMIT"]' WHEN k = 8 THEN '["AMOUNT_OVER_LIMIT"]' END,
  CASE WHEN k BETWEEN 4 AND 8 THEN t + 120000 END,
  CASE WHEN k = 9 THEN 'APPLICATION_CANCELLED_BY_CUSTOMER' END,
  NULL,
  NULL,
  CASE WHEN k < 4 THEN 1 ELSE 2 END,
  CASE WHEN k < 4 THEN 0 ELSE 1 END,
  t,
  CASE WHEN k < 4 THEN t ELSE t + 120000 END
FROM rows`;
}

/** Three lines per application (like the create factory): a product, a book and the shipping fee. */
function linesSql(partnerId: string): string {
  const n = "CAST(substr(a.order_number, -7) AS INTEGER)";
  return `
INSERT INTO order_lines (id, application_id, position, code, ean, name, type, variant, producer, categories,
  product_url, quantity, unit_price_amount, total_price_amount, unit_vat_rate, unit_vat_amount, total_vat_rate,
  total_vat_amount, state, sent_date, delivery_date, delivery_tracking_number, created_at, updated_at)
SELECT
  ${ulidTime("a.created_at")} || ${ulidRandom()},
  a.id,
  p.pos,
  CASE p.pos WHEN 0 THEN 'KB-' || (${n} % 50) WHEN 1 THEN 'BK-' || (${n} % 20) ELSE 'SHIP' END,
  CASE p.pos WHEN 0 THEN '859' || printf('%010d', ${n} % 50) END,
  CASE p.pos WHEN 0 THEN 'Mechanical keyboard ' || (${n} % 50) WHEN 1 THEN 'Guide to typing, vol. ' || (${n} % 20) ELSE 'Delivery' END,
  CASE p.pos WHEN 2 THEN 'SHIPPING_FEE' ELSE 'PHYSICAL' END,
  CASE p.pos WHEN 0 THEN 'black' END,
  CASE p.pos WHEN 0 THEN 'Keys & Co' END,
  CASE p.pos WHEN 0 THEN '["computers","keyboards"]' END,
  CASE p.pos WHEN 0 THEN 'https://shop.example.com/kb-' || (${n} % 50) END,
  CASE p.pos WHEN 0 THEN ${AMOUNTS.qty(n)} ELSE 1 END,
  CASE p.pos WHEN 0 THEN ${AMOUNTS.unit(n)} END,
  CASE p.pos WHEN 0 THEN ${AMOUNTS.qty(n)} * ${AMOUNTS.unit(n)} WHEN 1 THEN ${AMOUNTS.book(n)} ELSE ${AMOUNTS.shipping} END,
  CASE p.pos WHEN 0 THEN 21 END,
  CASE p.pos WHEN 0 THEN (${AMOUNTS.unit(n)} * 21 + 60) / 121 END,
  CASE p.pos WHEN 1 THEN 12 ELSE 21 END,
  CASE p.pos WHEN 0 THEN (${AMOUNTS.qty(n)} * ${AMOUNTS.unit(n)} * 21 + 60) / 121
    WHEN 1 THEN (${AMOUNTS.book(n)} * 12 + 56) / 112 ELSE (${AMOUNTS.shipping} * 21 + 60) / 121 END,
  CASE WHEN a.state = 'CANCELLED' THEN 'CANCELLED' WHEN a.state_reason = 'READY_SHIPPED' THEN 'SENT' ELSE 'PROCESSING' END,
  CASE WHEN a.state_reason = 'READY_SHIPPED' THEN date(a.updated_at / 1000, 'unixepoch') END, NULL, NULL,
  a.created_at,
  a.updated_at
FROM applications a CROSS JOIN (SELECT 0 AS pos UNION ALL SELECT 1 UNION ALL SELECT 2) p
WHERE a.partner_id = '${partnerId}'`;
}

/** The outbox rows the API would have written: creation, and the decision or cancellation. */
function eventsSql(partnerId: string): string {
  return `
INSERT INTO events (id, application_id, partner_id, sequence, state, state_reason, occurred_at, status, delivered_at)
SELECT ${ulidTime("a.created_at + (s.seq - 1) * 120000")} || ${ulidRandom()}, a.id, a.partner_id, s.seq,
  CASE s.seq WHEN 1 THEN 'PROCESSING' ELSE a.state END,
  CASE s.seq WHEN 1 THEN 'PROCESSING_REDIRECT_NEEDED' ELSE a.state_reason END,
  a.created_at + (s.seq - 1) * 120000, 'DELIVERED', a.created_at + (s.seq - 1) * 120000 + 900
FROM applications a JOIN (SELECT 1 AS seq UNION ALL SELECT 2) s ON s.seq <= a.event_sequence
WHERE a.partner_id = '${partnerId}'`;
}

/** The part of the D1 binding (as Miniflare hands it to Node) that seeding uses. */
export interface SeedDatabase {
  prepare(query: string): SeedStatement;
}
interface SeedStatement {
  bind(...values: unknown[]): SeedStatement;
  run(): Promise<unknown>;
  first<T>(): Promise<T | null>;
}

/** Splits a drizzle-kit migration into its statements. */
export function migrationStatements(sql: string): string[] {
  return sql
    .split("--> statement-breakpoint")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export interface SeedResult {
  pepper: string;
  partners: SeedPartner[];
  rows: { applications: number; orderLines: number; events: number };
}

/** Fills an empty, migrated database. */
export async function seed(db: SeedDatabase, log: (message: string) => void): Promise<SeedResult> {
  const pepper = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
  const partners: SeedPartner[] = [];
  for (const [index, [username, count]] of PARTNER_SIZES.entries()) {
    const credentials = {
      username,
      password: randomSecret(18),
      apiKey: randomSecret(24),
      signingSecret: newSigningSecret(),
    };
    await db.prepare(await partnerSql(credentials, pepper, false)).run();
    const row = await db.prepare("SELECT id FROM partners WHERE username = ?").bind(username).first<{ id: string }>();
    const started = Date.now();
    if (count > 0) {
      await db.prepare(applicationsSql(row!.id, index, count)).run();
      await db.prepare(linesSql(row!.id)).run();
      await db.prepare(eventsSql(row!.id)).run();
    }
    log(`  ${username}: ${count} applications in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    partners.push({ ...credentials, applications: count });
  }
  // No ANALYZE: a freshly deployed D1 database has no statistics either, so the planner works as in production.
  const counts = await db
    .prepare(
      "SELECT (SELECT COUNT(*) FROM applications) AS applications, (SELECT COUNT(*) FROM order_lines) AS orderLines, (SELECT COUNT(*) FROM events) AS events",
    )
    .first<SeedResult["rows"]>();
  return { pepper, partners, rows: counts! };
}
