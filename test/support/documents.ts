/**
 * Documents' files in tests: files of random bytes, documents kept as they were before files went to
 * R2 (base64 in the row), downloads read whole with their hash, and what the DOCUMENTS bucket holds.
 */
import { env } from "cloudflare:workers";
import { toBase64 } from "../../src/auth/crypto";
import { newId } from "../../src/ids";
import { call } from "./api";
import { app } from "./orders";
import { dbHolding, dbOfApplication } from "./shards";

/** `size` random bytes (incompressible, every byte value). */
export function randomFile(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  // getRandomValues fills at most 64 KiB a call.
  for (let at = 0; at < size; at += 65_536) crypto.getRandomValues(bytes.subarray(at, at + 65_536));
  return bytes;
}

export async function sha256(bytes: ArrayBuffer | Uint8Array<ArrayBuffer>): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** An amount-only return of 1 CZK keeping `file` as `filename` (a return needs goods that went out). */
export const returnKeeping = (file: Uint8Array, filename = "scan.pdf") => ({
  items: [],
  totalPrice: { amount: 1, currency: "CZK" },
  document: { type: "CREDIT_NOTE", file: { filename, content: toBase64(file) } },
});

/**
 * A document as the service kept it before files went to R2: the file as base64 in the row, no file
 * key, counted in the partner's usage as its write counted it. Answers its id.
 */
export async function keptInD1(
  applicationId: string,
  file: Uint8Array,
  filename = "scan.pdf",
  mimeType = "application/pdf",
): Promise<string> {
  const id = newId();
  const row = {
    id,
    type: "CREDIT_NOTE",
    filename,
    description: null,
    mimeType,
    content: toBase64(file),
    size: file.length,
    variableSymbol: null,
    createdAt: Date.now(),
    applicationId,
  };
  const db = await dbOfApplication(applicationId);
  await db.batch([
    db
      .prepare(
        `INSERT INTO documents (id, application_id, type, filename, mime_type, content, description, variable_symbol, size, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`,
      )
      .bind(id, applicationId, row.type, filename, mimeType, row.content, null, null, row.size, row.createdAt),
    db
      .prepare(
        "UPDATE partners SET stored_bytes = stored_bytes + ?1 WHERE id = (SELECT partner_id FROM applications WHERE id = ?2)",
      )
      .bind(new TextEncoder().encode(JSON.stringify(row)).length, applicationId),
  ]);
  return id;
}

export interface Download {
  status: number;
  /** Every header but those of the request itself (its id, the token's quota left). */
  headers: Record<string, string>;
  sha256: string;
  size: number;
}

/** The partner API's download of a document, read whole. */
export async function download(token: string, applicationId: string, documentId: string): Promise<Download> {
  const res = await call("GET", `${app(applicationId)}/documents/${documentId}`, { token });
  const body = await res.arrayBuffer();
  const headers = Object.fromEntries(
    [...res.headers].filter(([name]) => name !== "x-request-id" && !name.startsWith("x-rate-limit-")),
  );
  return { status: res.status, headers, sha256: await sha256(body), size: body.byteLength };
}

/** The keys the DOCUMENTS bucket holds under `prefix`. */
export async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.DOCUMENTS.list({ prefix, ...(cursor ? { cursor } : {}) });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys;
}

/** What a document's row holds: its file key, and the length of the content kept in it. */
export async function documentRow(id: string) {
  return (await dbHolding("documents", id))
    .prepare("SELECT file_key AS fileKey, length(content) AS contentLength, size FROM documents WHERE id = ?")
    .bind(id)
    .first<{ fileKey: string | null; contentLength: number; size: number }>();
}
