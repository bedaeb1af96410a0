/**
 * Documents kept with a return (spec "Limits", CONTRACT 5): accepted types by extension, base64
 * content, at most 500 kB decoded. Pure: no HTTP, no SQL.
 */
import { ok, problem, type Result, refused } from "./result";

export const DOCUMENT_TYPES = ["INVOICE", "PROFORMA_INVOICE", "CREDIT_NOTE", "OTHER"] as const;

/** 500 kB as the contract counts it, after base64 decoding. */
export const MAX_DOCUMENT_BYTES = 500 * 1024;

/**
 * Accepted file types by extension (spec "Limits"). The spec writes `plain/text` for csv and txt; that
 * is what is recorded, while downloads are served as `text/plain`, which browsers understand.
 */
const TYPES: Record<string, { mimeType: string; served?: string }> = {
  pdf: { mimeType: "application/pdf" },
  xlsx: { mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" },
  docx: { mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" },
  pptx: { mimeType: "application/vnd.openxmlformats-officedocument.presentationml.presentation" },
  xls: { mimeType: "application/vnd.ms-excel" },
  xlt: { mimeType: "application/vnd.ms-excel" },
  xla: { mimeType: "application/vnd.ms-excel" },
  doc: { mimeType: "application/msword" },
  dot: { mimeType: "application/msword" },
  ppt: { mimeType: "application/vnd.ms-powerpoint" },
  pot: { mimeType: "application/vnd.ms-powerpoint" },
  pps: { mimeType: "application/vnd.ms-powerpoint" },
  ppa: { mimeType: "application/vnd.ms-powerpoint" },
  csv: { mimeType: "plain/text", served: "text/plain; charset=utf-8" },
  txt: { mimeType: "plain/text", served: "text/plain; charset=utf-8" },
  jpg: { mimeType: "image/jpeg" },
  jpeg: { mimeType: "image/jpeg" },
  png: { mimeType: "image/png" },
  gif: { mimeType: "image/gif" },
};

/** Every media type a download can have. */
export const SERVED_MEDIA_TYPES = [...new Set(Object.values(TYPES).map((t) => t.served ?? t.mimeType))];

export function servedContentType(filename: string, mimeType: string): string {
  return TYPES[extension(filename)]?.served ?? mimeType;
}

function extension(filename: string): string {
  const dot = filename.lastIndexOf(".");
  return dot < 0 ? "" : filename.slice(dot + 1).toLowerCase();
}

export interface AcceptedDocument {
  /** As sent, or named by the document type when the content came alone (`credit_note.pdf`). */
  filename: string;
  mimeType: string;
  /** Canonical base64 (line breaks removed), as stored. */
  content: string;
  size: number;
}

/** What the first bytes of a file sent without a name say it is, read off its base64. */
const SIGNATURES: [prefix: string, extension: string][] = [
  ["JVBERi0", "pdf"],
  ["iVBORw0KGgo", "png"],
  ["/9j/", "jpg"],
  ["R0lGODdh", "gif"],
  ["R0lGODlh", "gif"],
];

/** The extension the first bytes of base64 content (line breaks removed) say it has: a PDF, PNG, JPEG or GIF. */
export const sniffedExtension = (content: string): string | undefined =>
  SIGNATURES.find(([prefix]) => content.startsWith(prefix))?.[1];

/**
 * Checks a return document (its content already known to be base64): a type from the extension
 * table, at most 500 kB decoded. A file sent without a name (Skip Pay's form) is typed by its first
 * bytes and named after the document type. The size is computed from the base64 length, so an
 * oversized file is refused without decoding it.
 */
export function acceptDocument(
  documentType: string,
  file: { filename?: string | undefined; content: string },
): Result<AcceptedDocument> {
  // Valid base64 by the request schema; line breaks are dropped so that the size can be read off the length.
  const content = file.content.replace(/[\r\n]/g, "");
  const sniffed = sniffedExtension(content);
  const filename = file.filename ?? (sniffed ? `${documentType.toLowerCase()}.${sniffed}` : undefined);
  const type = filename === undefined ? undefined : TYPES[extension(filename)];
  if (!type) {
    return refused(
      file.filename === undefined
        ? problem(
            "FILE_TYPE_NOT_ALLOWED",
            "a file sent without a name must be a PDF, PNG, JPEG or GIF; send {filename, content} for other types",
            "document.file",
          )
        : problem(
            "FILE_TYPE_NOT_ALLOWED",
            `file type not accepted; use one of ${Object.keys(TYPES).join(", ")}`,
            "document.file.filename",
          ),
    );
  }
  const size = (content.length / 4) * 3 - (content.endsWith("==") ? 2 : content.endsWith("=") ? 1 : 0);
  if (size > MAX_DOCUMENT_BYTES) {
    return refused(
      problem(
        "FILE_TOO_LARGE",
        `file is ${size} bytes; at most ${MAX_DOCUMENT_BYTES} are accepted`,
        "document.file.content",
      ),
    );
  }
  return ok({ filename: filename!, mimeType: type.mimeType, content, size });
}

/**
 * RFC 6266 with RFC 8187: an ASCII `filename` for old clients (other characters become `_`) and the
 * exact name as UTF-8 in `filename*`, which every current browser and HTTP library prefers.
 */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** The headers a kept document is downloaded with, by its owner (API and console alike): never cached. */
export function downloadHeaders(document: { filename: string; mimeType: string }): Record<string, string> {
  return {
    "Content-Type": servedContentType(document.filename, document.mimeType),
    "Content-Disposition": contentDisposition(document.filename),
    "Cache-Control": "private, no-store",
  };
}
