/**
 * Skip Pay's requests read into ours (CONTRACT 6c), before they are validated: a client generated from
 * their document sends `null` for every field not set, an empty item list for the whole order, a
 * document's content alone, and precheck's total within its order. Everything else of theirs our schemas
 * read as it is, or ignore (an unknown field).
 */
import { MAX_DOCUMENT_BYTES, sniffedExtension } from "../domain/documents";

type Json = Record<string, unknown>;

/** Their SDK sends null for every field not set: absent, to our schemas. Arrays keep their elements. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== "object") return value;
  const kept: Json = {};
  for (const [key, field] of Object.entries(value)) if (field !== null) kept[key] = withoutNulls(field);
  return kept;
}

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** "All items are considered when empty" (their cancel, send and deliver): ours omits `items` for that. */
function wholeOrderIfNone(body: Json): Json {
  const { items, ...rest } = body;
  return Array.isArray(items) && items.length === 0 ? rest : body;
}

/** The longest base64 text of a file a document may hold. */
const MAX_FILE_BASE64 = Math.ceil(MAX_DOCUMENT_BYTES / 3) * 4;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** Whether base64 content is text: valid UTF-8 with no control character but tab and line breaks. */
function isText(content: string): boolean {
  try {
    const bytes = Uint8Array.from(atob(content.replace(/[\r\n]/g, "")), (c) => c.charCodeAt(0));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
    return !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(utf8.decode(bytes));
  } catch {
    return false;
  }
}

/**
 * Their `document.file` is the content alone. Ours names a PDF, PNG, JPEG or GIF by its first bytes;
 * text (their own sample is) is named here, `<type>.txt`, a type the specification accepts (plain/text).
 */
function namedFile(body: Json): Json {
  const { document } = body;
  if (!isObject(document) || typeof document.file !== "string" || typeof document.type !== "string") return body;
  const content = document.file;
  if (content.length > MAX_FILE_BASE64 || sniffedExtension(content) !== undefined || !isText(content)) return body;
  return { ...body, document: { ...document, file: { filename: `${document.type.toLowerCase()}.txt`, content } } };
}

/** Their `customer.extraData` holds the four fields of our `fraudPreventionData`. */
function fraudPreventionData(body: Json): Json {
  const { customer } = body;
  const extra = isObject(customer) ? customer.extraData : undefined;
  if (!isObject(customer) || !isObject(extra) || customer.fraudPreventionData !== undefined) return body;
  const fields = ["transactionsNumber", "cashlessTransactionsNumber", "transactionsSum", "cashlessTransactionsSum"];
  const data = Object.fromEntries(fields.flatMap((f) => (f in extra ? [[f, extra[f]]] : [])));
  return { ...body, customer: { ...customer, fraudPreventionData: data } };
}

/** Their precheck asks of an order (its total) and one type, DEFERRED_PAYMENT when none is given. */
function precheckRequest(body: Json): Json {
  const total = body.totalPrice ?? (isObject(body.order) ? body.order.totalPrice : undefined);
  return { ...body, type: body.type ?? "DEFERRED_PAYMENT", ...(total !== undefined ? { totalPrice: total } : {}) };
}

const REQUESTS: Partial<Record<string, (body: Json) => Json>> = {
  createApplication: fraudPreventionData,
  cancelItems: wholeOrderIfNone,
  sendItems: (body) => namedFile(wholeOrderIfNone(body)),
  deliverItems: (body) => namedFile(wholeOrderIfNone(body)),
  returnItems: namedFile,
  precheck: precheckRequest,
};

/** A request body of the operation, as Skip Pay's client sends it, in our shapes. */
export function readSkipPayRequest(operationId: string, body: unknown): unknown {
  const read = withoutNulls(body);
  const adapt = REQUESTS[operationId];
  return adapt && isObject(read) ? adapt(read) : read;
}
