import { describe, expect, it } from "vitest";
import { MAX_FORM_BYTES } from "../../src/console/index";
import { createPartner, signIn } from "../support/api";
import { ConsoleBrowser, signedInBrowser } from "../support/console";
import { createApplication } from "../support/factories";

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

describe("the console", () => {
  it("answers every page, redirect and error with its CSP, never stored, never framed", async () => {
    const partner = await createPartner();
    const browser = await signedInBrowser(partner);
    const answers = await Promise.all(
      [
        "/console",
        "/console/sign-in",
        "/console/applications",
        "/console/notifications",
        "/console/payouts",
        "/console/payouts/nowhere/report.csv",
        "/console/nowhere",
        "/console/applications/x/y/z",
      ].map(async (path) => ({ path, res: await browser.get(path) })),
    );
    answers.push({ path: "signed out", res: await new ConsoleBrowser().get("/console/applications") });
    for (const { path, res } of answers) {
      expect({
        path,
        csp: res.headers.get("Content-Security-Policy"),
        cache: res.headers.get("Cache-Control"),
      }).toEqual({
        path,
        csp: CSP,
        cache: "no-store",
      });
    }
  });

  it("answers an unknown page as an HTML 404, not the API's JSON", async () => {
    const browser = await signedInBrowser(await createPartner());
    const res = await browser.get("/console/nowhere");
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(res.text).toContain("Not found");
  });

  it("loads nothing but its own style sheet, icon and (on one page) script, and no inline script", async () => {
    const { partner, token } = await signIn();
    const { id } = await createApplication(token);
    const browser = await signedInBrowser(partner);
    const pages = [
      await new ConsoleBrowser().get("/console/sign-in"),
      ...(await Promise.all(
        ["/console/applications", `/console/applications/${id}`, "/console/notifications", "/console/payouts"].map(
          (path) => browser.get(path),
        ),
      )),
    ];
    for (const res of pages) {
      expect(res.status).toBe(200);
      const sources = [...res.html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(sources.filter((s) => !s.startsWith("/console/") && !s.startsWith("#") && !s.startsWith("?"))).toEqual([]);
      expect(res.html).not.toMatch(/<script(?![^>]*\ssrc=)/);
      expect(res.html).not.toMatch(/\son[a-z]+=/);
      expect(res.html).not.toContain("style=");
    }
  });

  it("refuses a form body far beyond its largest form with 413, before anything reads it", async () => {
    const browser = new ConsoleBrowser();
    const res = await browser.post("/console/sign-in", { username: "demo", password: "x".repeat(MAX_FORM_BYTES) });
    expect(res.status).toBe(413);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(res.text).toContain("This form is too large");
  });
});
