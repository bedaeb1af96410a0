/** The query parameters of a list, read and checked against its collection. */
import { ok, type Problem, problem, type Result, refused } from "../domain/result";
import { loadZod, schema, z } from "../lazy-schema";
import {
  type Collection,
  DEFAULT_LIMIT,
  type FilterTerm,
  MAX_FILTER_VALUES,
  MAX_LIMIT,
  OPERATORS,
  type Operator,
  type PageRequest,
  type SortKey,
} from "./collection";

/** Hono hands a repeated query parameter over as an array. */
const once = () => z.string({ error: "must be given at most once" });

/**
 * The query parameters of a list. A list describes its `sort` and `filter` names with
 * `PageQuery.shape.sort.openapi({ description })`; they are read from the raw query (`parsePageRequest`).
 */
export const PageQuery = schema(() =>
  z.object({
    limit: z.coerce
      .number({ error: `must be an integer from 1 to ${MAX_LIMIT}` })
      .int(`must be an integer from 1 to ${MAX_LIMIT}`)
      .min(1, `must be an integer from 1 to ${MAX_LIMIT}`)
      .max(MAX_LIMIT, `must be an integer from 1 to ${MAX_LIMIT}`)
      .default(DEFAULT_LIMIT)
      .openapi({ description: `Items per page, 1 to ${MAX_LIMIT}`, example: DEFAULT_LIMIT }),
    after: once().min(1).max(64).optional().openapi({
      description:
        "Id of the last item of the page already read: answers the items after it. Must be an id this list served (else 400).",
    }),
    before: once().min(1).max(64).optional().openapi({
      description:
        "Id of the first item of the page already read: answers the items before it, in the same order. Not with `after`.",
    }),
    sort: once()
      .optional()
      .openapi({ description: "Comma-separated attributes, each ascending or, prefixed with `-`, descending" }),
    filter: once().optional().openapi({
      description: "`<name>|<operator>|<values>` terms joined by `;` (AND); values joined by `,`",
    }),
  }),
);

export const PagingInfo = schema(() =>
  z
    .object({
      itemsPerPage: z.number().int().openapi({ example: DEFAULT_LIMIT }),
      nextPage: z.string().optional().openapi({
        description: "Path with the full query of the next page; present when more items follow",
        example: "/financing/v1/applications?sort=-createdAt&limit=20&after=01JD3Z7Q9K4M2N8P5R6S7T8V9W",
      }),
      prevPage: z
        .string()
        .optional()
        .openapi({ description: "Path with the full query of the previous page; present when items precede" }),
    })
    .openapi("PagingInfo"),
);

export const pageOf = <T extends z.ZodType>(item: T, name: string) =>
  z.object({ data: z.array(item), pagingInfo: PagingInfo() }).openapi(name);

/** `+` is a space in a form-encoded query (URLSearchParams writes spaces so). */
const formDecode = (text: string) => decodeURIComponent(text.replace(/\+/g, " "));

/** The raw (still percent-encoded) values of each query parameter. */
function rawParameters(search: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const pair of search.replace(/^\?/, "").split("&")) {
    if (!pair) continue;
    const at = pair.indexOf("=");
    let name: string;
    try {
      name = formDecode(at < 0 ? pair : pair.slice(0, at));
    } catch {
      continue;
    }
    found.set(name, [...(found.get(name) ?? []), at < 0 ? "" : pair.slice(at + 1)]);
  }
  return found;
}

/** A page's size and cursor, as the query's validators answer them. */
export type PageParams = { limit: number; after?: string | undefined; before?: string | undefined };

/**
 * Reads `sort` and `filter` from the raw query of `url` (they need their own decoding, see
 * `parseFilter`) and checks the cursor parameters; every problem is reported, not only the first.
 */
export async function parsePageRequest(
  collection: Collection,
  url: string,
  params: PageParams,
): Promise<Result<PageRequest>> {
  const problems: Problem[] = [];
  const raw = rawParameters(new URL(url).search);
  const sort = parseSort(collection, single(raw, "sort", problems), problems);
  const filterText = single(raw, "filter", problems);
  // Some filters check their values with zod (e-mails, date-times); a list read without a filter, on a
  // route whose query the build compiled, does not load it.
  if (filterText !== undefined) await loadZod();
  const filter = parseFilter(collection, filterText, problems);
  return pageRequest(params, sort, filter, problems);
}

/**
 * The request of a page in the list's own order and unfiltered (no `sort`, no `filter` in the raw query
 * of `url`), which needs nothing of the collection: what a client polling a list asks. `undefined` for
 * any other request, which `parsePageRequest` reads.
 */
export function plainPageRequest(url: string, params: PageParams): Result<PageRequest> | undefined {
  const raw = rawParameters(new URL(url).search);
  if (raw.has("sort") || raw.has("filter")) return undefined;
  return pageRequest(params, [], [], []);
}

function pageRequest(
  params: PageParams,
  sort: SortKey[],
  filter: FilterTerm[],
  problems: Problem[],
): Result<PageRequest> {
  if (params.after !== undefined && params.before !== undefined) {
    problems.push(
      problem("INVALID_VALUE", "must not be combined with after: a page is read forward or backward", "before"),
    );
  }
  if (problems.length > 0) return refused(...problems);
  return ok({
    limit: params.limit,
    ...(params.after !== undefined ? { after: params.after } : {}),
    ...(params.before !== undefined ? { before: params.before } : {}),
    sort,
    filter,
  });
}

function single(raw: Map<string, string[]>, name: string, problems: Problem[]): string | undefined {
  const values = raw.get(name);
  if (values && values.length > 1) problems.push(problem("INVALID_VALUE", "must be given at most once", name));
  return values?.[0];
}

function parseSort(collection: Collection, raw: string | undefined, problems: Problem[]): SortKey[] {
  if (raw === undefined) return [];
  const invalid = (message: string) => problems.push(problem("INVALID_VALUE", message, "sort"));
  let text: string;
  try {
    // Attribute names hold no separators, so one decoding serves literal and encoded commas alike.
    text = formDecode(raw);
  } catch {
    invalid("is not validly percent-encoded");
    return [];
  }
  const keys: SortKey[] = [];
  for (const item of text.split(",")) {
    const descending = item.startsWith("-");
    const name = descending ? item.slice(1) : item;
    const column = Object.hasOwn(collection.sortable, name) ? collection.sortable[name] : undefined;
    if (!name) invalid(`"${text}" has an empty attribute name`);
    else if (!column) invalid(`unknown attribute "${name}"; sortable: ${Object.keys(collection.sortable).join(", ")}`);
    else if (keys.some((k) => k.name === name)) invalid(`"${name}" is given more than once`);
    else keys.push({ name, column, descending });
  }
  return keys;
}

/**
 * `<name>|<operator>|<values>` terms joined by `;`, values joined by `,`. A value may hold `|`, `,`,
 * `;` or `%` percent-encoded, so the text is split on the literal separators first and each piece
 * decoded after. Clients that encode the whole parameter (URLSearchParams, `curl --data-urlencode`)
 * turn every `|` into `%7C`: a value without a literal `|` is therefore decoded once before splitting,
 * and then a separator inside a value must have been encoded before that (`%252C` on the wire).
 */
function parseFilter(collection: Collection, raw: string | undefined, problems: Problem[]): FilterTerm[] {
  if (raw === undefined) return [];
  const invalid = (message: string) => problems.push(problem("INVALID_VALUE", message, "filter"));
  const decode = (piece: string, what: string): string | undefined => {
    try {
      return decodeURIComponent(piece);
    } catch {
      invalid(`${what} "${piece}" is not validly percent-encoded`);
      return undefined;
    }
  };
  let text = raw;
  if (!raw.includes("|")) {
    try {
      text = formDecode(raw);
    } catch {
      invalid("is not validly percent-encoded");
      return [];
    }
  }
  const terms: FilterTerm[] = [];
  let valueCount = 0;
  const names = Object.keys(collection.filterable).join(", ");
  for (const termText of text.split(";")) {
    const parts = termText.split("|");
    if (parts.length !== 3) {
      invalid(`"${termText}" must have the shape <name>|<operator>|<values>`);
      continue;
    }
    const name = decode(parts[0]!, "name");
    const operator = decode(parts[1]!, "operator");
    const values = parts[2]!.split(",").map((v) => decode(v, "value"));
    valueCount += values.length;
    if (name === undefined || operator === undefined || values.includes(undefined)) continue;
    const filterable = Object.hasOwn(collection.filterable, name) ? collection.filterable[name] : undefined;
    if (!filterable) {
      invalid(`unknown filter name "${name}"; filterable: ${names}`);
      continue;
    }
    if (!(OPERATORS as readonly string[]).includes(operator)) {
      invalid(`unknown operator "${operator}" in "${termText}"; operators: ${OPERATORS.join(", ")}`);
      continue;
    }
    const op = operator as Operator;
    if (!filterable.operators.includes(op)) {
      invalid(`"${name}" does not support operator "${op}"; it supports ${filterable.operators.join(", ")}`);
      continue;
    }
    if (op !== "in" && values.length !== 1) {
      invalid(`operator "${op}" in "${termText}" takes one value; "in" takes several`);
      continue;
    }
    const parsed: unknown[] = [];
    for (const value of values as string[]) {
      const result = filterable.parse(value);
      if (result.ok) parsed.push(result.value);
      else invalid(`value "${value}" of "${name}" ${result.message}`);
    }
    if (parsed.length === values.length) {
      terms.push({ name, operator: op, values: values as string[], condition: filterable.where(op, parsed) });
    }
  }
  if (valueCount > MAX_FILTER_VALUES) invalid(`holds ${valueCount} values; at most ${MAX_FILTER_VALUES} are allowed`);
  return terms;
}
