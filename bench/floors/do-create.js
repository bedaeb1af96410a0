// Fair floor of POST /financing/v1/applications: the call to the API's own rate-limit object that
// every authenticated request makes (RateLimiter.hit, as read-object.js), then create's own write: one
// D1 batch of the application row (every column, so all indexes of `applications` are maintained, the
// unique duplicate index included), its three order lines in one multi-row insert, its outbox event,
// the partner's storage counter and the audit log's entry with its byte count, on a D1 session at the primary, then the second object call of every write
// (RateLimiter.remember, the write's bookmark). The same file is the reference floor "+ queue send" when
// the Worker has the NOTIFICATIONS queue binding. The values are what the API stores for the benchmark's create body
// (bench/create-body.ts); ids, order number and duplicate fingerprint are unique per request, ids
// time-ordered like the API's ULIDs.
//
// BATCH is create's own SQL, as drizzle-orm 0.45 renders the three inserts of
// src/routes/applications/create.ts (`db.insert(applications).values(…)`, `insertLines`,
// `db.insert(events).values(…)`). Every benchmark run captures the batch the API sends (bench/capture.js)
// and compares: when create's statements change the report says this floor is stale, and BATCH must be
// updated here.
//
// Path: /<partnerId> (the writer partner, the same one the create scenario writes for).
const APPLICATION_SQL =
  'insert into "applications" ("id", "partner_id", "type", "state", "state_reason", "agreement_terms_and_conditions", "customer", "order_details", "merchant_urls", "order_number", "customer_email", "variable_symbols", "currency", "total_amount", "approved_amount", "refunded_amount", "decision_reasons", "decided_at", "accepted_offer", "expires_at", "reminder_at", "review_at", "review_outcome", "next_due_at", "cancel_reason", "custom_cancel_reason", "duplicate_fingerprint", "content_bytes", "event_sequence", "version", "idle_since", "archive_key", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const LINE_VALUES = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
const LINES_SQL = `insert into "order_lines" ("id", "application_id", "position", "code", "ean", "name", "type", "variant", "producer", "categories", "product_url", "quantity", "unit_price_amount", "total_price_amount", "unit_vat_rate", "unit_vat_amount", "total_vat_rate", "total_vat_amount", "state", "sent_date", "delivery_date", "delivery_tracking_number", "created_at", "updated_at") values ${LINE_VALUES}, ${LINE_VALUES}, ${LINE_VALUES}`;
const EVENT_SQL =
  'insert into "events" ("id", "application_id", "partner_id", "type", "sequence", "state", "state_reason", "expires_at", "occurred_at", "status", "next_attempt_at", "failed_attempts", "delivering_until", "delivering_to", "replayed_at", "delivered_at", "failure_reason") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
// The partner's storage counter: what the new rows hold, within its quota (src/db/storage.ts).
const QUOTA_SQL = `UPDATE partners SET stored_bytes = stored_bytes + ?1,
         within_quota = (?1 < 0 OR stored_bytes + audit_bytes + ?1 <= COALESCE(storage_quota_bytes, ?2)) WHERE id = ?3`;
// The audit log's entry of the create and its bytes (src/db/audit-events.ts), in the same batch.
const AUDIT_SQL =
  "INSERT INTO audit_events (id, partner_id, occurred_at, source, actor_type, actor_id, actor_name, operation, application_id, amount, currency, reason, subject, address, outcome, code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
const AUDIT_BYTES_SQL = "UPDATE partners SET audit_bytes = audit_bytes + ?1 WHERE id = ?2";
const BATCH = [APPLICATION_SQL, LINES_SQL, EVENT_SQL, QUOTA_SQL, AUDIT_SQL, AUDIT_BYTES_SQL];
/** About what an audit entry of a create holds (its row's JSON). */
const AUDIT_BYTES = 400;
/** About what the benchmark's create body stores (its rows' JSON), and the default quota. */
const STORED_BYTES = 4000;
const DEFAULT_QUOTA = 1073741824;
/** The customer's deadline (CUSTOMER_DECISION_TTL_SECONDS, 72 h). */
const CUSTOMER_DECISION_MS = 72 * 3600 * 1000;

const CUSTOMER = JSON.stringify({
  fullName: "Jana Nováková",
  email: "jana.novakova@example.com",
  phone: "+420777123456",
  fraudPreventionData: {
    transactionsNumber: 12,
    cashlessTransactionsNumber: 9,
    transactionsSum: { amount: 1250000, currency: "CZK" },
    cashlessTransactionsSum: { amount: 990000, currency: "CZK" },
  },
});
const ADDRESSES = [
  {
    name: "Jana Nováková",
    city: "Praha",
    country: "CZ",
    streetAddress: "Vinohradská",
    streetNumber: "12",
    zip: "12000",
    addressType: "BILLING",
  },
];
const MERCHANT_URLS = JSON.stringify({
  approvedRedirect: "https://shop.example.com/financing/approved?order=1",
  rejectedRedirect: "https://shop.example.com/financing/rejected",
  notificationEndpoint: "https://shop.example.com/financing/notifications",
});
// code, ean, name, type, variant, producer, categories, product_url, quantity, unit price, total price,
// unit VAT rate, unit VAT amount, total VAT rate, total VAT amount
const LINES = [
  [
    "KB-01",
    "8591234567890",
    "Mechanical keyboard",
    "PHYSICAL",
    "black",
    "Keys & Co",
    '["computers","keyboards"]',
    "https://shop.example.com/kb-01",
    2,
    76000,
    152000,
    21,
    13190,
    21,
    26380,
  ],
  ["BK-7", null, "Guide to typing", "PHYSICAL", null, null, null, null, 1, null, 16000, null, null, 12, 1714],
  ["SHIP", null, "Delivery", "SHIPPING_FEE", null, null, null, null, 1, null, 32000, null, null, 21, 5020],
];

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
// Unique per isolate and request without the API's per-id random bytes: a random isolate tag and a counter.
const TAG = Array.from({ length: 8 }, () => ALPHABET[Math.floor(Math.random() * 32)]).join("");
let counter = 0;

function id(time) {
  let timePart = "";
  let t = time;
  for (let i = 0; i < 10; i++) {
    timePart = ALPHABET[t % 32] + timePart;
    t = Math.floor(t / 32);
  }
  return `${timePart}${TAG}${String(++counter).padStart(8, "0")}`;
}

let opened;

export default {
  // Read by bench/floors.ts to compare with the batch the API sends; workerd ignores it.
  BATCH,
  async fetch(request, env, ctx) {
    const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName("bench:floor"));
    await limiter.hit(Date.now(), 1e9, 60);
    const partnerId = new URL(request.url).pathname.slice(1);
    // On a D1 session at the primary, as the API writes, then the write's bookmark kept in the object
    // (read-your-writes): the second object call every write makes.
    const session = env.DB.withSession("first-primary");
    const statements = BATCH.map((sql) => session.prepare(sql));
    const at = Date.now();
    const applicationId = id(at);
    const orderNumber = `FLOOR-${TAG}-${counter}`;
    const eventId = id(at);
    const details = JSON.stringify({
      number: orderNumber,
      reservationDate: 1795338900000,
      addresses: ADDRESSES,
      variableSymbols: ["2026000123"],
      deliveryCarrier: { carrierId: "PPL" },
      channel: "ESHOP",
    });
    const lineParams = LINES.flatMap((line, position) => [
      id(at),
      applicationId,
      position,
      line[0],
      line[1],
      line[2],
      line[3],
      line[4],
      line[5],
      line[6],
      line[7],
      line[8],
      line[9],
      line[10],
      line[11],
      line[12],
      line[13],
      line[14],
      "PROCESSING",
      null,
      null,
      null,
      at,
      at,
    ]);
    await session.batch([
      statements[0].bind(
        applicationId,
        partnerId,
        "DEFERRED_PAYMENT",
        "PROCESSING",
        "PROCESSING_REDIRECT_NEEDED",
        1,
        CUSTOMER,
        details,
        MERCHANT_URLS,
        orderNumber,
        "jana.novakova@example.com",
        "2026000123",
        "CZK",
        200000,
        null,
        0,
        null,
        null,
        null,
        at + CUSTOMER_DECISION_MS,
        null,
        null,
        null,
        at + CUSTOMER_DECISION_MS,
        null,
        null,
        `${TAG}${String(counter).padStart(56, "0")}`,
        // content_bytes: what the body's customer, order details, merchant URLs and lines hold.
        STORED_BYTES,
        1,
        0,
        // idle_since (the archive's age counts from the creation), archive_key (live).
        at,
        null,
        at,
        at,
      ),
      statements[1].bind(...lineParams),
      statements[2].bind(
        eventId,
        applicationId,
        partnerId,
        "APPLICATION_STATE_CHANGED",
        1,
        "PROCESSING",
        "PROCESSING_REDIRECT_NEEDED",
        at + CUSTOMER_DECISION_MS,
        at,
        "PENDING",
        at,
        0,
        null,
        null,
        null,
        null,
        null,
      ),
      statements[3].bind(STORED_BYTES, DEFAULT_QUOTA, partnerId),
      statements[4].bind(
        `${eventId}A`,
        partnerId,
        at,
        "API",
        "API",
        "0123456789abcdef",
        null,
        "createApplication",
        applicationId,
        200000,
        "CZK",
        null,
        null,
        null,
        "SUCCEEDED",
        null,
      ),
      statements[5].bind(AUDIT_BYTES, partnerId),
    ]);
    // The object keeps bookmarks for a live session only, as a token's object holds one: open it once.
    opened ??= limiter.openSession({
      partnerId,
      expiresAt: Date.now() + 365 * 86_400_000,
      wireProfile: "DEFAULT",
      shard: 0,
    });
    await opened;
    const bookmark = session.getBookmark();
    if (bookmark) await limiter.remember(bookmark);
    // With a queue binding (the reference floor "+ queue send"): the event's wake-up, as create sends it
    // after the response. The local runtime's queue is a Durable Object of the same workerd, so its CPU
    // counts here; in production the send is a subrequest to the Queues service.
    if (env.NOTIFICATIONS) ctx.waitUntil(env.NOTIFICATIONS.sendBatch([{ body: { eventId, due: at } }]));
    return Response.json({ id: applicationId }, { status: 201 });
  },
};
