/** `pagingInfo`: the page size and ready-made requests for the neighbouring pages. */
import type { Infer } from "../lazy-schema";
import type { FilterTerm, Page, PageRequest } from "./collection";
import type { PagingInfo } from "./query";

/** Inside a filter value, the separators and `%` must stay data when the text is decoded again. */
const escapeValue = (value: string) =>
  value.replace(/[%|,;]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);

/** Filter terms as the `filter` parameter writes them, each value read back as it is (see parseFilter). */
export function filterParameter(terms: readonly Pick<FilterTerm, "name" | "operator" | "values">[]): string {
  return terms.map((t) => `${t.name}|${t.operator}|${t.values.map(escapeValue).join(",")}`).join(";");
}

/**
 * `{itemsPerPage, nextPage?, prevPage?}`: links carry the full query (sort, filter, limit) and the
 * cursor, so that a client requests them as they are. An empty page has no item to anchor a link on.
 */
export function pagingInfo(path: string, request: PageRequest, page: Page<unknown>): Infer<typeof PagingInfo> {
  const link = (cursor: "after" | "before", id: string) => {
    const query = new URLSearchParams();
    if (request.sort.length > 0) {
      query.set("sort", request.sort.map((k) => `${k.descending ? "-" : ""}${k.name}`).join(","));
    }
    if (request.filter.length > 0) {
      query.set("filter", filterParameter(request.filter));
    }
    query.set("limit", String(request.limit));
    query.set(cursor, id);
    return `${path}?${query}`;
  };
  return {
    // What this page gave when its budget cut it short; the links keep the limit asked.
    itemsPerPage: page.limitedTo ?? request.limit,
    ...(page.hasMoreAfter && page.lastId !== undefined ? { nextPage: link("after", page.lastId) } : {}),
    ...(page.hasMoreBefore && page.firstId !== undefined ? { prevPage: link("before", page.firstId) } : {}),
  };
}
