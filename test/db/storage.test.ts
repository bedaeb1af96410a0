/**
 * Each partner's share of the database every partner shares: documents and lines per application are
 * capped, and what a partner's rows hold is counted against its storage quota; growth past the quota is
 * refused whole (422), changes nothing, and an operator's raise lets writes through again.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ANSWER_RESERVATION } from "../../src/db/idempotency-keys";
import { MAX_DOCUMENTS, MAX_LINES } from "../../src/domain/application-size";
import { forgetExpiredKeys, IDEMPOTENCY_TTL_MS } from "../../src/http/idempotency";
import { call, signIn } from "../support/api";
import { applicationCount, applicationRequest, countRows, createApplication } from "../support/factories";
import { app, approved, approvedWithTotal, expect422, order, put, shipped } from "../support/orders";
import { dbOf, dbOfApplication } from "../support/shards";

async function usage(partnerId: string): Promise<number> {
  const row = await (await dbOf(partnerId))
    .prepare("SELECT stored_bytes AS bytes FROM partners WHERE id = ?")
    .bind(partnerId)
    .first<{ bytes: number }>();
  return row!.bytes;
}

async function setQuota(partnerId: string, bytes: number | null) {
  await (await dbOf(partnerId))
    .prepare("UPDATE partners SET storage_quota_bytes = ? WHERE id = ?")
    .bind(bytes, partnerId)
    .run();
}

/** An amount-only return of 1 with a text document of `size` bytes (base64 in the request). */
const returnWithDocument = (size: number) => ({
  items: [],
  totalPrice: { amount: 1, currency: "CZK" },
  document: {
    type: "CREDIT_NOTE",
    file: { filename: "note.txt", content: btoa("x".repeat(size)) },
  },
});

describe("per-application bounds", () => {
  it(`keeps at most ${MAX_DOCUMENTS} documents: the next return with one is refused whole (DOCUMENT_LIMIT_REACHED)`, async () => {
    const { token } = await signIn();
    const id = await shipped(token);
    for (let i = 0; i < MAX_DOCUMENTS; i++) {
      expect((await put(token, `${app(id)}/order/return`, returnWithDocument(1000))).status).toBe(200);
    }
    const before = await order(token, id);
    expect(before.documents).toHaveLength(MAX_DOCUMENTS);

    const body = await expect422(
      await put(token, `${app(id)}/order/return`, returnWithDocument(1000)),
      "DOCUMENT_LIMIT_REACHED",
    );
    expect(body.errors[0]).toMatchObject({ attribute: "document" });
    expect(await order(token, id)).toEqual(before);
    // A return without a document still works: only documents are capped.
    const { document: _, ...plain } = returnWithDocument(0);
    expect((await put(token, `${app(id)}/order/return`, plain)).status).toBe(200);
  });

  it(`holds at most ${MAX_LINES} lines: a split past it is refused (LINE_LIMIT_REACHED), a whole line still moves`, async () => {
    const { token } = await signIn();
    const id = await approvedWithTotal(token, 100_000, 10);
    // Lines as earlier splits and cancellations would have left them: the one of 10 units and 498 more.
    const db = await dbOfApplication(id);
    const [line] = (await db.prepare("SELECT * FROM order_lines WHERE application_id = ?").bind(id).all()).results;
    const rows = Array.from({ length: MAX_LINES - 2 }, (_, i) => ({
      ...line,
      id: `${line!.id}-${i}`,
      position: i + 2,
      state: "CANCELLED",
    }));
    for (let i = 0; i < rows.length; i += 50) {
      await db.batch(
        rows.slice(i, i + 50).map((row) =>
          db
            .prepare(
              `INSERT INTO order_lines (${Object.keys(row).join(", ")}) VALUES (${Object.keys(row)
                .map(() => "?")
                .join(", ")})`,
            )
            .bind(...Object.values(row).map((v) => (v === undefined ? null : v))),
        ),
      );
    }
    expect(await countRows("order_lines", "application_id = ?", id)).toBe(MAX_LINES - 1);
    // One split brings the application to the limit …
    const first = await put(token, `${app(id)}/order/send`, { items: [{ code: "TV-55", quantity: 1 }] });
    expect(first.status, await first.clone().text()).toBe(200);
    expect(await countRows("order_lines", "application_id = ?", id)).toBe(MAX_LINES);
    // … the next is refused and changes nothing, …
    const before = await order(token, id);
    await expect422(
      await put(token, `${app(id)}/order/send`, { items: [{ code: "TV-55", quantity: 1 }] }),
      "LINE_LIMIT_REACHED",
    );
    expect(await order(token, id)).toEqual(before);
    expect(await countRows("order_lines", "application_id = ?", id)).toBe(MAX_LINES);
    // … and acting on whole lines adds none.
    expect((await put(token, `${app(id)}/order/send`, {})).status).toBe(200);
  });
});

describe("the partner's storage quota", () => {
  it("counts what the partner's rows hold: create, documents and refunds add, replaced lines give back", async () => {
    const { partner, token } = await signIn();
    expect(await usage(partner.id)).toBe(0);
    const body = applicationRequest();
    const created = await createApplication(token, body);
    const afterCreate = await usage(partner.id);
    // The row holds the request's content and more (keys, ids, times), never several times it.
    expect(afterCreate).toBeGreaterThan(JSON.stringify(body).length);
    expect(afterCreate).toBeLessThan(3 * JSON.stringify(body).length);

    // The same order again: its lines are replaced by equal ones, so the usage stays where it was.
    expect((await put(token, `${app(created.id)}/order`, { order: body.order })).status).toBe(200);
    expect(Math.abs((await usage(partner.id)) - afterCreate)).toBeLessThan(50);

    const id = await shipped(token);
    const beforeReturn = await usage(partner.id);
    expect((await put(token, `${app(id)}/order/return`, returnWithDocument(30_000))).status).toBe(200);
    expect((await usage(partner.id)) - beforeReturn).toBeGreaterThan(40_000);
  });

  it("counts the variable-symbol lookup rows the database adds, as migration 0008 counts those before it", async () => {
    const { partner, token } = await signIn();
    const withSymbols = (variableSymbols: string[]) => {
      const body = applicationRequest();
      return { ...body, order: { ...body.order, variableSymbols } };
    };
    const created = await createApplication(token, withSymbols(["1234567890", "42", "42"]));
    const withThem = await usage(partner.id);
    await createApplication(token, withSymbols([]));
    const without = (await usage(partner.id)) - withThem;
    const rows = await (await dbOfApplication(created.id))
      .prepare(
        `SELECT partner_id AS partnerId, variable_symbol AS variableSymbol, application_id AS applicationId,
         length(json_object('partnerId', partner_id, 'variableSymbol', variable_symbol, 'applicationId', application_id)) AS counted
       FROM application_variable_symbols WHERE application_id = ? ORDER BY variable_symbol`,
      )
      .bind(created.id)
      .all<{ partnerId: string; variableSymbol: string; applicationId: string; counted: number }>();
    // One row per distinct symbol, keyed by its partner; the migration's SQL counts each as the service does.
    expect(rows.results.map((r) => [r.partnerId, r.variableSymbol])).toEqual([
      [partner.id, "1234567890"],
      [partner.id, "42"],
    ]);
    const lookupBytes = rows.results.reduce((sum, { counted, ...row }) => {
      expect(counted).toBe(new TextEncoder().encode(JSON.stringify(row)).length);
      return sum + counted;
    }, 0);
    // The application with symbols holds its lookup rows beyond the one without (whose own row is only
    // the symbols' few characters shorter).
    expect(withThem - without).toBeGreaterThanOrEqual(lookupBytes);
    expect(withThem - without).toBeLessThan(lookupBytes + 100);
  });

  it("refuses growth past the quota whole: 500 kB documents until it is full, then 422 and nothing changed", async () => {
    const { partner, token } = await signIn();
    // The book went out (refunds need goods that went out); the rest is sent at the end.
    const id = await shipped(token, [{ code: "BK-7" }]);
    await setQuota(partner.id, (await usage(partner.id)) + 1_600_000);
    let accepted = 0;
    let refused: Response | undefined;
    while (!refused) {
      const res = await put(token, `${app(id)}/order/return`, returnWithDocument(500 * 1024));
      if (res.status === 200) accepted++;
      else refused = res;
    }
    // 683 kB of base64 each: two fit in 1.6 MB, the third does not.
    expect(accepted).toBe(2);
    const before = { order: await order(token, id), usage: await usage(partner.id) };
    const body = await expect422(refused, "STORAGE_QUOTA_EXCEEDED");
    expect(body).toMatchObject({ error: "unprocessable" });
    expect(before.order.documents).toHaveLength(2);
    expect(before.order.refundedPrice.amount).toBe(2);

    // Past the quota (an operator lowered it), whatever grows is refused: a new application, a refund, a
    // keyed request (its answer would be stored) …
    const partnerApps = await applicationCount(partner.id);
    await setQuota(partner.id, before.usage - 1);
    await expect422(
      await call("POST", "/financing/v1/applications", { token, body: applicationRequest() }),
      "STORAGE_QUOTA_EXCEEDED",
    );
    await expect422(
      await call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 1, currency: "CZK" } } }),
      "STORAGE_QUOTA_EXCEEDED",
    );
    await expect422(
      await put(token, `${app(id)}/order/send`, {}, { "Idempotency-Key": "over-quota-1" }),
      "STORAGE_QUOTA_EXCEEDED",
    );
    expect(await applicationCount(partner.id)).toBe(partnerApps);
    expect(await order(token, id)).toEqual(before.order);
    expect(await usage(partner.id)).toBe(before.usage);
    // … while what adds nothing still works: sending the goods.
    expect((await put(token, `${app(id)}/order/send`, {})).status).toBe(200);

    // The operator raises the quota: the partner writes again.
    await setQuota(partner.id, null);
    expect((await put(token, `${app(id)}/order/return`, returnWithDocument(500 * 1024))).status).toBe(200);
  });

  it("counts a stored Idempotency-Key answer until it is forgotten, then gives it back exactly", async () => {
    const { partner, token } = await signIn();
    const id = await approved(token);
    const before = await usage(partner.id);
    const res = await put(token, `${app(id)}/order/send`, {}, { "Idempotency-Key": "send-once" });
    expect(res.status).toBe(200);
    const withAnswer = await usage(partner.id);
    expect(withAnswer - before).toBeGreaterThan((await res.text()).length);

    const stored = await dbOf(partner)
      .prepare("SELECT stored_bytes AS bytes FROM idempotency_keys WHERE partner_id = ?")
      .bind(partner.id)
      .first<{ bytes: number }>();
    await dbOf(partner)
      .prepare("UPDATE idempotency_keys SET created_at = ? WHERE partner_id = ?")
      .bind(Date.now() - IDEMPOTENCY_TTL_MS - 1, partner.id)
      .run();
    await forgetExpiredKeys(env, partner.shard);
    expect(await countRows("idempotency_keys", "partner_id = ?", partner.id)).toBe(0);
    expect(await usage(partner.id)).toBe(withAnswer - stored!.bytes);
    expect(await usage(partner.id)).toBe(before);
  });

  it("holds at the quota's edge under 40 parallel keyed writes: what they store never passes it", async () => {
    const { partner, token } = await signIn();
    const id = await shipped(token);
    const refund = (i: number) =>
      call("POST", `${app(id)}/refunds`, {
        token,
        body: { totalPrice: { amount: 1, currency: "CZK" } },
        headers: { "Idempotency-Key": `edge-${i}` },
      });
    // Room for a few refunds' rows, not for their answers: a claim reserves room for its answer first.
    const quota = (await usage(partner.id)) + 2_000;
    await setQuota(partner.id, quota);
    const crowded = await Promise.all(Array.from({ length: 40 }, (_, i) => refund(i)));
    for (const res of crowded) await expect422(res, "STORAGE_QUOTA_EXCEEDED");
    expect(await usage(partner.id)).toBeLessThanOrEqual(quota);
    expect(await countRows("refunds", "application_id = ?", id)).toBe(0);
    expect(await countRows("idempotency_keys", "partner_id = ?", partner.id)).toBe(0);

    // Room for one answer at a time: every refund that is answered is stored with its answer, and the
    // usage never passes the quota, however the 40 interleave.
    const roomier = (await usage(partner.id)) + ANSWER_RESERVATION + 20_000;
    await setQuota(partner.id, roomier);
    const statuses = (await Promise.all(Array.from({ length: 40 }, (_, i) => refund(100 + i)))).map((r) => r.status);
    const created = statuses.filter((status) => status === 201).length;
    expect(created).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 201 || status === 422)).toBe(true);
    expect(await usage(partner.id)).toBeLessThanOrEqual(roomier);
    expect(await countRows("refunds", "application_id = ?", id)).toBe(created);
    expect(await countRows("idempotency_keys", "partner_id = ? AND response_status = 201", partner.id)).toBe(created);
  });
});
