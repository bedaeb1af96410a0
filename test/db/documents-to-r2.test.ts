/**
 * The cron's move of the files kept in D1 before files went to R2: every download answers the same
 * bytes and headers before, during and after it; it can stop anywhere, run beside itself, and run again.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { documentFileKey } from "../../src/db/document-files";
import { FILES_IN_D1, MOVED_PER_RUN, moveDocumentsToR2 } from "../../src/db/documents-to-r2";
import { runScheduled } from "../../src/scheduled";
import { partnersOnShard, signIn } from "../support/api";
import { type Download, documentRow, download, keptInD1, keysUnder, randomFile } from "../support/documents";
import { shipped } from "../support/orders";

// SQL on `env.DB` directly: the partners are of shard 0 (the routing: test/db/shards.test.ts).
partnersOnShard(0);

const usage = async (partnerId: string) =>
  (await env.DB.prepare("SELECT stored_bytes AS n FROM partners WHERE id = ?").bind(partnerId).first<{ n: number }>())!
    .n;

/** A partner's application with documents kept in D1: a 500 kB PDF, a text file, a small image. */
async function keptDocuments() {
  const { partner, token } = await signIn();
  const id = await shipped(token);
  const documents = [
    await keptInD1(id, randomFile(500 * 1024), "scan.pdf"),
    await keptInD1(id, new TextEncoder().encode("order 42;returned;1\n"), "returns.csv", "plain/text"),
    await keptInD1(id, randomFile(3000), "photo.png", "image/png"),
  ];
  const downloads = async () => Promise.all(documents.map((doc) => download(token, id, doc)));
  return { partner, token, id, documents, downloads };
}

/** Moves until nothing is left in D1, each run of one document; answers how many runs moved one. */
async function moveOneByOne(between: () => Promise<void>): Promise<number> {
  let runs = 0;
  for (;;) {
    const run = await moveDocumentsToR2(env.DB, env.DOCUMENTS, 1);
    if (run.moved === 1) runs++;
    await between();
    if (!run.more) return runs;
  }
}

describe("moving the files kept in D1 to R2", () => {
  it("moves each file to its key and empties its row; downloads answer the same before, during and after; a second run changes nothing", async () => {
    const { partner, id, documents, downloads } = await keptDocuments();
    const before: Download[] = await downloads();
    expect(before.map((d) => [d.status, d.headers["content-type"]])).toEqual([
      [200, "application/pdf"],
      [200, "text/plain; charset=utf-8"],
      [200, "image/png"],
    ]);
    const usageBefore = await usage(partner.id);

    // One document a run, every download checked between two runs.
    expect(await moveOneByOne(async () => expect(await downloads()).toEqual(before))).toBe(documents.length);

    for (const doc of documents) {
      const key = documentFileKey(partner.id, id, doc);
      expect(await documentRow(doc)).toMatchObject({ fileKey: key, contentLength: 0 });
    }
    expect((await keysUnder(`documents/${partner.id}/`)).sort()).toEqual(
      documents.map((doc) => documentFileKey(partner.id, id, doc)).sort(),
    );
    expect(await downloads()).toEqual(before);
    // The partner's usage counts a document the same wherever its file is.
    expect(await usage(partner.id)).toBe(usageBefore);
    // Another partner: 404 for a moved document, as before.
    const stranger = await signIn();
    expect((await download(stranger.token, id, documents[0]!)).status).toBe(404);

    // Again: nothing moves, no row and no object changes.
    const rows = await Promise.all(documents.map(documentRow));
    const etags = await Promise.all(
      documents.map(async (doc) => (await env.DOCUMENTS.head(documentFileKey(partner.id, id, doc)))!.etag),
    );
    expect(await moveDocumentsToR2(env.DB, env.DOCUMENTS)).toEqual({ moved: 0, more: false });
    expect(await Promise.all(documents.map(documentRow))).toEqual(rows);
    expect(
      await Promise.all(
        documents.map(async (doc) => (await env.DOCUMENTS.head(documentFileKey(partner.id, id, doc)))!.etag),
      ),
    ).toEqual(etags);
    expect(await downloads()).toEqual(before);
  });

  it("between its put and its update, a download still reads the row's content; after, the object", async () => {
    const { documents, downloads } = await keptDocuments();
    const before = await downloads();
    const seen: Download[][] = [];
    // The bucket as the move sees it: each put, once done, lets the downloads run before the row changes.
    const watched = new Proxy(env.DOCUMENTS, {
      get(target, prop) {
        if (prop === "put") {
          return async (...args: Parameters<R2Bucket["put"]>) => {
            const put = await target.put(...args);
            seen.push(await downloads());
            return put;
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    expect(await moveDocumentsToR2(env.DB, watched)).toEqual({ moved: documents.length, more: false });
    expect(seen).toEqual(documents.map(() => before));
    expect(await downloads()).toEqual(before);
  });

  it("a run stopped after a put leaves the row as it was, and the next run moves it", async () => {
    const { partner, id, documents, downloads } = await keptDocuments();
    const before = await downloads();
    const stopping = new Proxy(env.DOCUMENTS, {
      get(target, prop) {
        if (prop === "put") {
          return async (...args: Parameters<R2Bucket["put"]>) => {
            await target.put(...args);
            throw new Error("the run's invocation ended");
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    await expect(moveDocumentsToR2(env.DB, stopping)).rejects.toThrow("the run's invocation ended");
    expect(await documentRow(documents[0]!)).toMatchObject({ fileKey: null });
    expect(await downloads()).toEqual(before);

    expect(await moveDocumentsToR2(env.DB, env.DOCUMENTS)).toEqual({ moved: documents.length, more: false });
    expect(await documentRow(documents[0]!)).toMatchObject({ fileKey: documentFileKey(partner.id, id, documents[0]!) });
    expect(await downloads()).toEqual(before);
  });

  it("two runs beside each other move each file once, while downloads run all along", async () => {
    const { documents, downloads } = await keptDocuments();
    const before = await downloads();
    let moving = true;
    const runs = Promise.all([
      moveDocumentsToR2(env.DB, env.DOCUMENTS),
      moveDocumentsToR2(env.DB, env.DOCUMENTS),
    ]).finally(() => {
      moving = false;
    });
    const during: Download[][] = [];
    while (moving) during.push(await downloads());
    const [first, second] = await runs;
    expect(first.moved + second.moved).toBe(documents.length);
    expect(during.length).toBeGreaterThan(0);
    for (const seen of during) expect(seen).toEqual(before);
    expect(await downloads()).toEqual(before);
  });

  it(`moves ${MOVED_PER_RUN} a run, oldest first, as the cron's task, and says when more are left`, async () => {
    const { token } = await signIn();
    const id = await shipped(token);
    const file = randomFile(100);
    const kept: string[] = [];
    for (let i = 0; i < MOVED_PER_RUN + 1; i++) kept.push(await keptInD1(id, file, `note-${i}.pdf`));

    expect((await runScheduled(env)).documentsMoved).toEqual({ moved: MOVED_PER_RUN, more: true });
    expect(await documentRow(kept.at(-1)!)).toMatchObject({ fileKey: null });
    expect((await runScheduled(env)).documentsMoved).toEqual({ moved: 1, more: false });
    expect(await documentRow(kept.at(-1)!)).toMatchObject({ contentLength: 0 });
  });

  it("finds the files left in D1 through its partial index, without reading the table's rows", async () => {
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${FILES_IN_D1}`).bind(51).all<{ detail: string }>();
    expect(plan.results.map((r) => r.detail)).toEqual(["SCAN documents USING COVERING INDEX documents_in_d1_idx"]);
  });
});
