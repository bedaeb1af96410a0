/**
 * The console's page frame and the small pieces every page uses. Server-rendered HTML; Hono's JSX escapes
 * every value. The style sheet (and, on the one page that shows a secret, the copy script) are the
 * Worker's own static assets (public/console/assets/), so the CSP allows nothing but 'self'.
 */
import type { Context } from "hono";
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { formatDateTime } from "../clock";
import type { Page } from "../collections/collection";
import { formatMoney } from "../domain/money";
import { allows, type Capability, type Role } from "../domain/roles";
import type { HonoEnv } from "../env";

export const ASSETS = "/console/assets";

export interface Chrome {
  title: string;
  /** Which part of the console the page belongs to (marked in the navigation); absent: signed out. */
  section?: "applications" | "notifications" | "payouts" | "people" | "audit" | "account";
  /** The page's CSRF token, for the sign-out form. */
  csrf?: string;
  /** The signed-in role: the navigation offers what it may open. */
  role?: Role;
  /** Load the copy script (the page shows a value to copy). */
  copyScript?: boolean;
  timeZone?: string;
}

function Frame({ chrome, children }: { chrome: Chrome; children: Child }) {
  const link = (section: Chrome["section"], href: string, text: string, capability: Capability = "read") =>
    chrome.role && allows(chrome.role, capability) ? (
      <a href={href} aria-current={chrome.section === section ? "page" : undefined}>
        {text}
      </a>
    ) : null;
  return (
    <>
      {raw("<!doctype html>")}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="robots" content="noindex" />
          <title>{`${chrome.title} · Partner console`}</title>
          <link rel="icon" href={`${ASSETS}/icon.svg`} type="image/svg+xml" />
          <link rel="stylesheet" href={`${ASSETS}/console.css`} />
          {chrome.copyScript ? <script src={`${ASSETS}/copy.js`} defer /> : null}
        </head>
        <body>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top">
            <span class="brand">Partner console</span>
            {chrome.section && chrome.csrf ? (
              <>
                <nav aria-label="Console">
                  {link("applications", "/console/applications", "Applications")}
                  {link("notifications", "/console/notifications", "Notifications")}
                  {link("payouts", "/console/payouts", "Payouts", "payouts")}
                  {link("people", "/console/people", "People", "people")}
                  {link("audit", "/console/audit", "Audit log", "audit")}
                  {link("account", "/console/account", "Your sign-in", "self")}
                </nav>
                <form method="post" action="/console/sign-out">
                  <input type="hidden" name="csrf" value={chrome.csrf} />
                  <button type="submit">Sign out</button>
                </form>
              </>
            ) : null}
          </header>
          <main id="main">{children}</main>
          {chrome.timeZone ? <footer>Times are shown in {chrome.timeZone}.</footer> : null}
        </body>
      </html>
    </>
  );
}

/**
 * What every console answer carries, its error pages too: private pages are never stored (the back
 * button after signing out shows nothing), scripts and styles come from this origin only, forms post
 * only here, and no site may frame a page (the CSP's frame-ancestors 'none'; the app's X-Frame-Options,
 * SAMEORIGIN, is for browsers without it).
 */
export function consoleHeaders(c: Context<HonoEnv>) {
  c.header("Cache-Control", "no-store");
  c.header(
    "Content-Security-Policy",
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  c.header("X-Robots-Tag", "noindex");
}

/** A whole page, answered with `status`. */
export function page(c: Context<HonoEnv>, chrome: Chrome, body: Child, status: ContentfulStatusCode = 200) {
  consoleHeaders(c);
  return c.html(<Frame chrome={chrome}>{body}</Frame>, status);
}

/** The chrome of a signed-in page. */
export const signedIn = (c: Context<HonoEnv>, title: string, section: Chrome["section"]): Chrome => ({
  title,
  section,
  csrf: c.get("csrfToken"),
  role: c.get("consoleUser").role,
  timeZone: c.var.config.SERVICE_TIMEZONE,
});

/** Whether the signed-in role holds the capability: what a page offers (the guard refuses the rest). */
export const may = (c: Context<HonoEnv>, capability: Capability) => allows(c.get("consoleUser").role, capability);

export const Money = (props: { amount: number | null; currency: string }) =>
  props.amount === null ? <span class="muted">none yet</span> : formatMoney(props.amount, props.currency);

/** An instant as people read it: `YYYY-MM-DD hh:mm` (with seconds: `:ss`) on the service's clock. */
export const shownTime = (at: number | null, timeZone: string, seconds = false) =>
  at === null
    ? "–"
    : formatDateTime(at, timeZone)
        .slice(0, seconds ? 19 : 16)
        .replace("T", " ");

/** An instant as shown, with the exact date-time for machines. */
export function Time(props: { at: number | null | undefined; timeZone: string; seconds?: boolean }) {
  if (props.at === null || props.at === undefined) return <span class="muted">–</span>;
  return (
    <time datetime={formatDateTime(props.at, props.timeZone)}>
      {shownTime(props.at, props.timeZone, props.seconds)}
    </time>
  );
}

export const StateBadge = (props: { state: string; reason?: string | null }) => (
  <span>
    <span class={`state ${props.state}`}>{props.state}</span>
    {props.reason ? <span class="code"> {props.reason}</span> : null}
  </span>
);

/** A list's filter form's buttons: submit it, and while a filter applies, a link back to the whole list. */
export const FilterActions = (props: { label: string; filtered: boolean; clear: string }) => (
  <div class="actions">
    <button type="submit" class="primary">
      {props.label}
    </button>
    {props.filtered ? <a href={props.clear}>Clear</a> : null}
  </div>
);

/** What a form posts besides its fields: the CSRF token, and for work done once, its one-time token. */
export const FormTokens = (props: { csrf: string; once?: string }) => (
  <>
    <input type="hidden" name="csrf" value={props.csrf} />
    {props.once ? <input type="hidden" name="once" value={props.once} /> : null}
  </>
);

/** A message about what was just done, or why it was refused. */
export interface Notice {
  kind: "done" | "refused";
  heading: string;
  lines?: string[];
}

export function NoticeBox({ notice }: { notice: Notice | undefined }) {
  if (!notice) return null;
  return (
    <div
      class={notice.kind === "done" ? "card notice" : "card notice refused"}
      role={notice.kind === "done" ? "status" : "alert"}
      id="notice"
    >
      <h2>{notice.heading}</h2>
      {(notice.lines ?? []).map((line) => (
        <p>{line}</p>
      ))}
    </div>
  );
}

const TYPE_NAMES: Record<string, string> = { PAY_IN_THREE: "Pay in three", DEFERRED_PAYMENT: "Pay later" };

export const typeName = (type: string) => TYPE_NAMES[type] ?? type;

/**
 * A partner's free text as a page shows it: at most `max` characters, the rest as "…" (the API answers
 * it whole). Escaped, a character can take six bytes, so unclipped texts could carry a page past the
 * ceiling of an answer (src/domain/application-size.ts) where its JSON stays under it.
 */
export const clip = (text: string | null | undefined, max = 100) =>
  text == null ? "" : text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** The customer's name as the partner sent it: a full name, or first and last. */
export function customerName(customer: unknown): string {
  const { fullName, firstName, lastName } = (customer ?? {}) as Record<string, string | undefined>;
  return fullName ?? [firstName, lastName].filter(Boolean).join(" ");
}

export const customerEmail = (customer: unknown) => ((customer ?? {}) as { email?: string }).email ?? "";

/**
 * The links to a list's neighbouring pages: the same form (`fields`, as the address had them) with the
 * cursor of the first or last row shown.
 */
export function Paging(props: {
  path: string;
  fields: Record<string, string>;
  page: Page<unknown> | undefined;
  previous: string;
  next: string;
}) {
  const { path, fields, page, previous, next } = props;
  if (!page || !(page.hasMoreBefore || page.hasMoreAfter)) return null;
  const link = (cursor: "after" | "before", id: string) => {
    const params = new URLSearchParams(Object.entries(fields).filter(([, value]) => value));
    params.set(cursor, id);
    return `${path}?${params}`;
  };
  return (
    <nav class="paging" aria-label="Pages">
      {page.hasMoreBefore && page.firstId ? (
        <a href={link("before", page.firstId)} rel="prev">
          {previous}
        </a>
      ) : (
        <span />
      )}
      {page.hasMoreAfter && page.lastId ? (
        <a href={link("after", page.lastId)} rel="next">
          {next}
        </a>
      ) : null}
    </nav>
  );
}
