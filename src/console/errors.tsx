/**
 * The console's failures as pages: the reader is a partner's person with a browser, so the status is the
 * contract's but the body is HTML, never the API's JSON envelope.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { HonoEnv } from "../env";
import { ApiError } from "../http/errors";
import { faultStatus } from "../http/log";
import { page } from "./layout";

const PAGES = {
  bad_request: {
    status: 400,
    heading: "This request could not be handled",
    message: "Please go back and use the console's own forms.",
  },
  form_expired: {
    status: 403,
    heading: "This form has expired",
    message: "The form was not sent from this console session. Please open the page again and repeat what you did.",
  },
  https_required: { status: 403, heading: "HTTPS is required", message: "Please open the console over https://." },
  forbidden: {
    status: 403,
    heading: "Your role does not allow this",
    message: "Ask an admin of your account if you need it.",
  },
  not_found: { status: 404, heading: "Not found", message: "There is no such page or application in your console." },
  setup_link_gone: {
    status: 404,
    heading: "This setup link does not work",
    message: "It was used already, or its day has passed. Ask an admin of your account for a new one.",
  },
  too_large: {
    status: 413,
    heading: "This form is too large",
    message: "Please go back and send the console's own form again.",
  },
  in_progress: {
    status: 409,
    heading: "Still working on it",
    message: "The same form is being handled already. Please open the page again in a moment.",
  },
  unprocessable: {
    status: 422,
    heading: "This could not be done",
    message: "Please open the page again and check what you asked for.",
  },
  form_reused: {
    status: 422,
    heading: "This form was already sent with other values",
    message: "Please open the page again and fill in the form anew.",
  },
  storage_full: {
    status: 422,
    heading: "Your storage is full",
    message: "Nothing was stored. Please ask us to raise your storage quota.",
  },
  too_many: { status: 429, heading: "Too many requests", message: "Please wait a moment and try again." },
  server_error: { status: 500, heading: "Something went wrong", message: "Please try again in a moment." },
  unavailable: { status: 503, heading: "We are busy for a moment", message: "Please try again in a few seconds." },
} as const;

export type ErrorPageName = keyof typeof PAGES;

export function errorPage(
  c: Context<HonoEnv>,
  name: ErrorPageName,
  status: ContentfulStatusCode = PAGES[name].status,
  why?: string,
) {
  const { heading } = PAGES[name];
  const message = why ? `${why} ${PAGES[name].message}` : PAGES[name].message;
  // Only a fault of ours gets a reference: it is what support needs to find the log line.
  const reference = status === 500 ? c.get("requestId") : undefined;
  return page(
    c,
    { title: heading },
    <section>
      <h1>{heading}</h1>
      <p>{message}</p>
      {reference ? <p class="muted">Reference: {reference}</p> : null}
      <p>
        <a href="/console/applications">Back to the console</a>
      </p>
    </section>,
    status,
  );
}

/**
 * The page of each of the API's errors that can reach the console (its middleware's, the idempotency
 * store's), by the error's code or its problem's: the console says them in its own words, not the API's.
 */
const PAGE_OF_CODE: Partial<Record<string, ErrorPageName>> = {
  https_required: "https_required",
  not_found: "not_found",
  request_too_large: "too_large",
  rate_limit_exceeded: "too_many",
  IDEMPOTENCY_KEY_IN_USE: "in_progress",
  IDEMPOTENCY_KEY_REUSED: "form_reused",
  STORAGE_QUOTA_EXCEEDED: "storage_full",
};
/** For a code the console has no words for: the words of a page of the same status, else "bad request". */
const PAGE_OF_STATUS: Partial<Record<number, ErrorPageName>> = {
  422: "unprocessable",
  429: "too_many",
};

function pageOf(err: ApiError): ErrorPageName {
  const codes = [...(err.errors ?? []).map((e) => e.code), err.error];
  const known = codes.map((code) => PAGE_OF_CODE[code]).find((name) => name !== undefined);
  return known ?? PAGE_OF_STATUS[err.status] ?? "bad_request";
}

/**
 * Errors thrown under /console: raised by the app's middleware (the quota, HTTPS) or inside a handler.
 * Client faults keep their 4xx as a page, a transient failure of the platform is 503 with Retry-After,
 * anything else is logged and 500.
 */
export function consoleError(err: Error, c: Context<HonoEnv>) {
  if (err instanceof ApiError && err.status < 500) {
    for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
    // The words are the page's; the status stays the error's, as the API would answer it.
    return errorPage(c, pageOf(err), err.status);
  }
  if (err instanceof HTTPException && err.status < 500) return errorPage(c, "bad_request");
  return errorPage(c, faultStatus(c, err) === 503 ? "unavailable" : "server_error");
}
