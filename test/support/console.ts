/**
 * A browser for the console's tests: it keeps cookies as a browser does (by name, dropped when the
 * server expires them), never follows redirects (tests see the 303 and its Location), and reads forms
 * as a person would submit them: their hidden fields, plus what the test fills in.
 */
import type { Vars } from "./api";
import { BASE, send, type TestPartner } from "./api";

export interface Page {
  status: number;
  headers: Headers;
  html: string;
  /** What a reader sees: tags removed, entities decoded, whitespace collapsed. */
  text: string;
  location: string | null;
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

export function visibleText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!)
    .replace(/[\u00a0\u202f]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The hidden fields of the form posting to `action` (the first such form on the page). */
export function formFields(html: string, action: string): Record<string, string> {
  const forms = html.match(/<form[^>]*>[\s\S]*?<\/form>/g) ?? [];
  const form = forms.find((f) => f.includes(`action="${action}"`));
  if (!form) throw new Error(`no form posting to ${action}`);
  const fields: Record<string, string> = {};
  for (const [, name, value] of form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)"\/?>/g)) {
    fields[name!] = value!.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!);
  }
  return fields;
}

export class ConsoleBrowser {
  readonly cookies = new Map<string, string>();

  constructor(
    /** Variables to override for this browser's requests (through the same app, see send()). */
    readonly vars?: Vars,
    /** Headers every request carries (a client address, say). */
    readonly headers: Record<string, string> = {},
  ) {}

  async request(path: string, init: RequestInit = {}): Promise<Page> {
    const headers = new Headers({ ...this.headers, ...(init.headers as Record<string, string>) });
    if (this.cookies.size > 0) {
      headers.set("Cookie", [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    }
    const res = await send(
      path.startsWith("http") ? path : `${BASE}${path}`,
      { ...init, headers, redirect: "manual" },
      this.vars,
    );
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const [name, value] = [pair!.slice(0, pair!.indexOf("=")), pair!.slice(pair!.indexOf("=") + 1)];
      if (/max-age=0/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const html = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      html,
      text: visibleText(html),
      location: res.headers.get("Location"),
    };
  }

  get(path: string): Promise<Page> {
    return this.request(path);
  }

  /** Posts `fields` as a form does (URL-encoded), nothing else. */
  post(path: string, fields: Record<string, string>): Promise<Page> {
    return this.request(path, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** Opens `page`, then submits its form posting to `action` with its hidden fields and `fields`. */
  async submit(page: string, action: string, fields: Record<string, string> = {}): Promise<Page> {
    const opened = await this.get(page);
    return this.post(action, { ...formFields(opened.html, action), ...fields });
  }

  async signIn(partner: Pick<TestPartner, "username" | "password">, password = partner.password): Promise<Page> {
    return this.submit("/console/sign-in", "/console/sign-in", { username: partner.username, password });
  }
}

/** A browser signed in as the partner. */
export async function signedInBrowser(partner: TestPartner, vars?: Vars): Promise<ConsoleBrowser> {
  const browser = new ConsoleBrowser(vars);
  const res = await browser.signIn(partner);
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return browser;
}
