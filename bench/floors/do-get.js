// Fair floor of GET /financing/v1/applications/{id}: the one call to the API's own rate-limit object
// that every authenticated request makes (RateLimiter.hit, as read-object.js), then exactly the
// statement the API's GET sends to D1, executed the way it executes it, and the row as JSON.
//
// STATEMENT is get's own SQL: Drizzle's relational query in src/db/applications.ts (`presentedQuery`:
// `db.query.applications.findFirst` by id and partner, the application's presented columns (`expires_at`, `content_bytes` and `archive_key` among them), `with` the
// lines (a domain Line's columns) ordered by position and id and the documents' id, type, filename and
// description ordered by id), as drizzle-orm 0.45 renders it,
// with the lines and documents as JSON subqueries. Drizzle's prepared findFirst binds
// (applicationId, partnerId, 1) and reads with .raw(). It was captured from the running API
// (bench/capture.js); every benchmark run captures it again and compares: when get's statement changes
// the report says this floor is stale, and STATEMENT and METHOD here must be updated with the new text.
//
// Path: /<partnerId>/<applicationId>.
const STATEMENT =
  'select "id", "type", "state", "state_reason", "agreement_terms_and_conditions", "customer", "order_details", "merchant_urls", "currency", "approved_amount", "refunded_amount", "cancel_reason", "custom_cancel_reason", "expires_at", "created_at", "updated_at", "content_bytes", "archive_key", (select coalesce(json_group_array(json_array("id", "position", "code", "ean", "name", "type", "variant", "producer", "categories", "product_url", "quantity", "unit_price_amount", "total_price_amount", "unit_vat_rate", "unit_vat_amount", "total_vat_rate", "total_vat_amount", "state", "sent_date", "delivery_date", "delivery_tracking_number")), json_array()) as "data" from (select * from "order_lines" "applications_lines" where "applications_lines"."application_id" = "applications"."id" order by "applications_lines"."position" asc, "applications_lines"."id" asc) "applications_lines") as "lines", (select coalesce(json_group_array(json_array("id", "type", "filename", "description")), json_array()) as "data" from (select * from "documents" "applications_documents" where "applications_documents"."application_id" = "applications"."id" order by "applications_documents"."id" asc) "applications_documents") as "documents" from "applications" "applications" where ("applications"."id" = ? and "applications"."partner_id" = ?) limit ?';
const METHOD = "raw";

export default {
  // Read by bench/floors.ts to compare with the SQL the API sends; workerd ignores them.
  STATEMENT,
  METHOD,
  async fetch(request, env) {
    const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName("bench:floor"));
    await limiter.hit(Date.now(), 1e9, 60);
    const [, partnerId, id] = new URL(request.url).pathname.split("/");
    // On a D1 session, as the API reads (read replicas): a statement of the session, bound per request.
    const rows = await env.DB.withSession("first-unconstrained").prepare(STATEMENT).bind(id, partnerId, 1).raw();
    if (rows.length === 0) return new Response("not found", { status: 404 });
    return Response.json(rows[0]);
  },
};
