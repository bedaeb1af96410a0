/**
 * Documents' files in R2, their metadata in D1: what a return with a file adds to the database, the
 * download's bytes and headers, and the order that keeps the two stores in step when a write is
 * refused, loses a race or ends without an answer.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { changeApplication } from "../../src/applications/change-application";
import { toBase64 } from "../../src/auth/crypto";
import { ABANDONED_AFTER_MS, collectAbandonedUploads, documentFileKey, keepingFile } from "../../src/db/document-files";
import { commit, WriteConflict } from "../../src/db/write-batch";
import { acceptDocument } from "../../src/domain/documents";
import { planReturn } from "../../src/domain/order-operations";
import { json, partnersOnShard, signIn } from "../support/api";
import { documentRow, download, keptInD1, keysUnder, randomFile, returnKeeping, sha256 } from "../support/documents";
import { DEADLINES } from "../support/domain";
import { countRows } from "../support/factories";
import { app, type OrderView, order, put, shipped } from "../support/orders";

// SQL on `env.DB` directly: the partners are of shard 0 (the routing: test/db/shards.test.ts).
partnersOnShard(0);

/** The size of the database file, as D1 reports it after a statement. */
async function databaseSize(): Promise<number> {
  return (await env.DB.prepare("SELECT 1").run()).meta.size_after;
}

const FILE_BYTES = 500 * 1024;

describe("a document's file in R2, its metadata in D1", () => {
  it("a return with a 500 kB file grows the database by the metadata only; the download answers the same bytes and headers as a file kept in D1", async () => {
    const { partner, token } = await signIn();
    const id = await shipped(token);
    const file = randomFile(FILE_BYTES);

    const before = await databaseSize();
    const res = await put(token, `${app(id)}/order/return`, returnKeeping(file, "credit-note.pdf"));
    expect(res.status).toBe(200);
    const grown = (await databaseSize()) - before;
    const [document] = (await json<OrderView>(res)).documents;

    // The file is one object under its partner, application and document …
    const key = documentFileKey(partner.id, id, document!.id);
    expect(await keysUnder(`documents/${partner.id}/`)).toEqual([key]);
    const object = await env.DOCUMENTS.get(key);
    expect(await sha256(await object!.arrayBuffer())).toBe(await sha256(file));
    // … and the row holds where it is, with no content: the whole return (its event, lines, refund,
    // entries and audit entry with it) grew the database by a few pages, not by the file's 683 kB of base64.
    expect(await documentRow(document!.id)).toEqual({ fileKey: key, contentLength: 0, size: FILE_BYTES });
    expect(grown).toBeLessThan(32 * 1024);
    expect(await countRows("document_uploads")).toBe(0);

    // The same file kept as before (base64 in its row) downloads with the very same bytes and headers.
    const legacy = await keptInD1(id, file, "credit-note.pdf");
    const fromR2 = await download(token, id, document!.id);
    const fromD1 = await download(token, id, legacy);
    expect(fromR2).toEqual({
      status: 200,
      headers: expect.objectContaining({
        "content-type": "application/pdf",
        "content-disposition": `attachment; filename="credit-note.pdf"; filename*=UTF-8''credit-note.pdf`,
        "cache-control": "private, no-store",
      }),
      sha256: await sha256(file),
      size: FILE_BYTES,
    });
    expect(fromR2).toEqual(fromD1);

    // Another partner: 404, as for any document not its own.
    const stranger = await signIn();
    expect((await download(stranger.token, id, document!.id)).status).toBe(404);
  });

  it("a return refused whole (the storage quota) leaves no file behind", async () => {
    const { partner, token } = await signIn();
    const id = await shipped(token);
    await env.DB.prepare("UPDATE partners SET storage_quota_bytes = stored_bytes + 1000 WHERE id = ?")
      .bind(partner.id)
      .run();
    const before = await order(token, id);
    const res = await put(token, `${app(id)}/order/return`, returnKeeping(randomFile(10_000)));
    expect(res.status).toBe(422);
    expect(await order(token, id)).toEqual(before);
    expect(await keysUnder(`documents/${partner.id}/`)).toEqual([]);
    expect(await countRows("document_uploads")).toBe(0);
  });

  it("a write that loses its race takes its file back, every round", async () => {
    const { partner, token } = await signIn();
    const id = await shipped(token);
    const file = toBase64(randomFile(1000));
    const services = {
      client: env.DB,
      files: env.DOCUMENTS,
      archive: env.ARCHIVE,
      storageQuota: 1_000_000_000,
      deadlines: DEADLINES,
      timeZone: "UTC",
      notify: () => {},
    };
    const accepted = acceptDocument("CREDIT_NOTE", { filename: "note.pdf", content: file });
    if (!accepted.ok) throw new Error("the file is accepted");
    const result = await changeApplication(services, partner.id, id, (current, ctx) => {
      // As if another request wrote between this round's read and its write: the guard refuses it.
      (current.application as { version: number }).version = -1;
      return planReturn(
        current,
        {
          items: [],
          totalPrice: { amount: 1, currency: "CZK" },
          document: { type: "CREDIT_NOTE", accepted: accepted.value },
        },
        ctx,
      );
    });
    expect(result).toMatchObject({ outcome: "refused", problems: [{ code: "CONCURRENT_MODIFICATION" }] });
    expect(await keysUnder(`documents/${partner.id}/`)).toEqual([]);
    expect(await countRows("document_uploads")).toBe(0);

    // Two returns at once: each lands (the loser's round runs again), and the bucket holds exactly the
    // files their rows name.
    const [first, second] = await Promise.all([
      put(token, `${app(id)}/order/return`, returnKeeping(randomFile(20_000))),
      put(token, `${app(id)}/order/return`, returnKeeping(randomFile(20_000))),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const rows = await env.DB.prepare(
      "SELECT file_key AS key FROM documents WHERE application_id = ? ORDER BY file_key",
    )
      .bind(id)
      .all<{ key: string }>();
    expect(rows.results).toHaveLength(2);
    expect(await keysUnder(`documents/${partner.id}/`)).toEqual(rows.results.map((r) => r.key));
    expect(await countRows("document_uploads")).toBe(0);
  });

  it("a write whose outcome is unknown keeps its file until the cron collects it, an hour on; a batch whose upload was given up is refused", async () => {
    const { partner } = await signIn();
    const at = Date.now();
    const file = { key: documentFileKey(partner.id, "app-1", "doc-1"), base64: toBase64(randomFile(1000)) };
    // The batch's answer is lost: it may have landed, so the file stays, and its record says so.
    await expect(
      keepingFile(env.DB, env.DOCUMENTS, file, at, async () => {
        throw new Error("network connection lost");
      }),
    ).rejects.toThrow("network connection lost");
    expect(await keysUnder(file.key)).toEqual([file.key]);

    // Within the hour the cron leaves it; past it, the file goes, then its record.
    expect(await collectAbandonedUploads(env.DB, env.DOCUMENTS, at + ABANDONED_AFTER_MS - 1000)).toBe(0);
    expect(await keysUnder(file.key)).toEqual([file.key]);
    expect(await collectAbandonedUploads(env.DB, env.DOCUMENTS, at + ABANDONED_AFTER_MS + 1000)).toBe(1);
    expect(await keysUnder(file.key)).toEqual([]);
    expect(await countRows("document_uploads")).toBe(0);
    expect(await collectAbandonedUploads(env.DB, env.DOCUMENTS, at + ABANDONED_AFTER_MS + 1000)).toBe(0);

    // A batch that would land after the cron gave its upload up is refused whole: no row can name a
    // file the cron deletes.
    const late = { ...file, key: documentFileKey(partner.id, "app-1", "doc-2") };
    const usage = () =>
      env.DB.prepare("SELECT stored_bytes AS n FROM partners WHERE id = ?").bind(partner.id).first<{ n: number }>();
    const usageBefore = await usage();
    await expect(
      keepingFile(env.DB, env.DOCUMENTS, late, at, async (recorded) => {
        await env.DB.prepare("UPDATE document_uploads SET abandoned = 1 WHERE file_key = ?").bind(late.key).run();
        return commit(env.DB, [
          env.DB.prepare("UPDATE partners SET stored_bytes = stored_bytes + 1 WHERE id = ?").bind(partner.id),
          ...recorded,
        ]);
      }),
    ).rejects.toBeInstanceOf(WriteConflict);
    expect(await usage()).toEqual(usageBefore);
    expect(await keysUnder(late.key)).toEqual([]);
    expect(await countRows("document_uploads")).toBe(0);
  });
});
