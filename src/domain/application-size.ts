/**
 * How much one application may hold (CONTRACT 5, "Limits" in docs/partner/limits.md). Pure: no HTTP,
 * no SQL.
 *
 * An application is read whole, its lines as one JSON value of one statement (src/db/applications.ts),
 * and answered whole. D1 refuses a value over 2 MB, so an application that grew past it could never be
 * read again, nor lapse, and the sweep's page that holds it would fail for every partner. Lines grow by
 * splits (every partial operation adds one) as well as by creation, so the budget is checked wherever
 * lines are made: at creation and in every plan (plan.ts, `finish`).
 *
 * Its content is measured as JSON in UTF-8 (the customer, the order's details, the merchant URLs and
 * every line with its identifiers and texts), which is within a few per cent of what a read builds and
 * of what GET answers; the budget sits far below D1's 2 MB, and below the ceiling of an answer
 * (MAX_ANSWER_BYTES), so that any application fits in any answer, a list page's first item included.
 */

/**
 * What one application may hold in the database every partner shares: lines grow with every partial
 * operation (a split) and documents with returns, so each has a ceiling far above any real order.
 */
export const MAX_LINES = 500;
export const MAX_DOCUMENTS = 20;
/**
 * A reason or note the partner writes down with a change, a refund or a cancellation. Here, not with
 * the plans that check it, so that a request schema reads it without importing every rule.
 */
export const MAX_REASON_LENGTH = 500;

/** The most content one application may hold: a quarter of a MiB, 8 × below D1's value limit. */
export const MAX_APPLICATION_BYTES = 256 * 1024;

/**
 * The most an answer of the API or a console page may carry: a list page stops adding applications
 * when the next would pass it (src/collections/applications.ts), so that no request of 120 bytes can
 * ask for megabytes.
 */
export const MAX_ANSWER_BYTES = 512 * 1024;

/**
 * The content a list page adds up before it stops (its first application always comes): the most one
 * application may hold, so that the answer, with what presenting adds, stays within MAX_ANSWER_BYTES.
 */
export const MAX_PAGE_CONTENT_BYTES = MAX_APPLICATION_BYTES;

const utf8 = new TextEncoder();

/** What a value holds as JSON in UTF-8: the measure of every part of an application. */
export const jsonBytes = (value: unknown): number => utf8.encode(JSON.stringify(value) ?? "").length;

/** What the lines hold, each with its identifiers and texts. */
export const linesBytes = (lines: readonly object[]): number => lines.reduce((sum, line) => sum + jsonBytes(line), 0);
