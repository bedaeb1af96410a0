import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { HonoEnv } from "../env";
import { ApiError } from "../http/errors";
import { faultStatus } from "../http/log";
import { ErrorPage } from "./pages";

/**
 * The gateway's failures as pages: the reader is a customer with a browser, so the status is the
 * contract's but the body is HTML, never the partners' JSON envelope.
 */
const PAGES = {
  400: { heading: "This request could not be handled", message: "Please use the buttons on the payment page." },
  404: {
    heading: "Payment link not found",
    message: "This payment link is not valid. Please return to the shop and start the payment again.",
  },
  500: { heading: "Something went wrong", message: "Please try again in a moment." },
  503: { heading: "We are busy for a moment", message: "Please try again in a few seconds." },
} as const;

export function errorPage(c: Context<HonoEnv>, status: keyof typeof PAGES) {
  const page = PAGES[status];
  // Only a fault of ours gets a reference: it is what support needs to find the log line.
  const reference = status === 500 ? c.get("requestId") : undefined;
  return c.html(<ErrorPage heading={page.heading} message={page.message} reference={reference} />, status);
}

/**
 * Errors thrown inside gateway handlers: client faults keep a 4xx page, a transient failure of the
 * platform is 503 with Retry-After, anything else is logged and 500.
 */
export function gatewayError(err: Error, c: Context<HonoEnv>) {
  if (err instanceof ApiError && err.status === 404) return errorPage(c, 404);
  if ((err instanceof ApiError || err instanceof HTTPException) && err.status < 500) return errorPage(c, 400);
  return errorPage(c, faultStatus(c, err));
}
