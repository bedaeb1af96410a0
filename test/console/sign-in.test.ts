import { describe, expect, it } from "vitest";
import { call, createPartner } from "../support/api";
import { ConsoleBrowser, formFields } from "../support/console";

const SIGN_IN = "/console/sign-in";

describe("the console's sign-in", () => {
  it("is a form with User name, Password and Sign in, and a CSRF token bound to a cookie of its own", async () => {
    const page = await new ConsoleBrowser().get(SIGN_IN);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<label for="username">User name</label>');
    expect(page.html).toContain('<label for="password">Password</label>');
    expect(page.html).toMatch(/<button type="submit" class="primary">\s*Sign in\s*<\/button>/);
    expect(formFields(page.html, SIGN_IN).csrf).toMatch(/^[0-9a-f]{64}$/);
    expect(page.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^console-sign-in=[^;]+; Max-Age=3600; Path=\/; HttpOnly; SameSite=Strict$/),
    ]);
  });

  it("signs in with the partner's credentials: a session cookie, HttpOnly and SameSite=Strict, and the applications", async () => {
    const partner = await createPartner();
    const browser = new ConsoleBrowser();
    const res = await browser.signIn(partner);
    expect(res.status).toBe(303);
    expect(res.location).toBe("/console/applications");
    const session = res.headers.getSetCookie().find((c) => c.startsWith("console-session="));
    expect(session).toMatch(/^console-session=[A-Za-z0-9_-]{43}; Max-Age=28800; Path=\/; HttpOnly; SameSite=Strict$/);
    const list = await browser.get("/console/applications");
    expect(list.status).toBe(200);
    expect(list.text).toContain("Applications");
  });

  it("where HTTPS is required, names the cookie __Host- and marks it Secure", async () => {
    const partner = await createPartner();
    const browser = new ConsoleBrowser({ REQUIRE_HTTPS: "true" });
    const form = await browser.get("https://api.test/console/sign-in");
    expect(form.headers.getSetCookie()[0]).toMatch(
      /^__Host-console-sign-in=[^;]+; Max-Age=3600; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    const res = await browser.post("https://api.test/console/sign-in", {
      ...formFields(form.html, SIGN_IN),
      username: partner.username,
      password: partner.password,
    });
    expect(res.status).toBe(303);
    expect(res.headers.getSetCookie().find((c) => c.startsWith("__Host-console-session="))).toMatch(
      /; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    expect((await browser.get("https://api.test/console/applications")).status).toBe(200);
    // Plain HTTP is refused there, as a page.
    const plain = await browser.get("http://api.test/console/applications");
    expect(plain.status).toBe(403);
    expect(plain.headers.get("Content-Type")).toMatch(/^text\/html/);
  });

  it("gives a new session id at each sign-in and ends the one the browser had", async () => {
    const partner = await createPartner();
    const browser = new ConsoleBrowser();
    // A sign-in form opened while signed out (sign-in sends a live session home)...
    const form = formFields((await browser.get(SIGN_IN)).html, SIGN_IN);
    const signInCookie = browser.cookies.get("console-sign-in")!;
    await browser.signIn(partner);
    const first = browser.cookies.get("console-session")!;
    // ... and sent while the first session lives.
    browser.cookies.set("console-sign-in", signInCookie);
    const fields = { ...form, username: partner.username, password: partner.password };
    expect((await browser.post(SIGN_IN, fields)).status).toBe(303);
    const second = browser.cookies.get("console-session")!;
    expect(second).not.toBe(first);
    const replayed = new ConsoleBrowser();
    replayed.cookies.set("console-session", first);
    const res = await replayed.get("/console/applications");
    expect(res.status).toBe(303);
    expect(res.location).toBe(SIGN_IN);
  });

  it("ends the sign-in form's cookie once signed in: that form cannot sign in again", async () => {
    const partner = await createPartner();
    const browser = new ConsoleBrowser();
    const fields = {
      ...formFields((await browser.get(SIGN_IN)).html, SIGN_IN),
      username: partner.username,
      password: partner.password,
    };
    const signedIn = await browser.post(SIGN_IN, fields);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.getSetCookie()).toContainEqual(expect.stringMatching(/^console-sign-in=; Max-Age=0; /));
    expect(browser.cookies.has("console-sign-in")).toBe(false);
    const again = await browser.post(SIGN_IN, fields);
    expect(again.status).toBe(403);
    expect(again.text).toContain("This form has expired");
  });

  it("refuses a wrong password in words, without a session", async () => {
    const partner = await createPartner();
    const browser = new ConsoleBrowser();
    const res = await browser.signIn(partner, "wrong-password");
    expect(res.status).toBe(400);
    expect(res.text).toContain("The user name or password is wrong.");
    expect(browser.cookies.has("console-session")).toBe(false);
    // The user name stays filled in; the password never comes back.
    expect(res.html).toContain(`value="${partner.username}"`);
    expect(res.html).not.toContain("wrong-password");
  });

  it("refuses the sixth attempt after five wrong passwords, even a right one: the API's own throttle, shared", async () => {
    const partner = await createPartner();
    const browser = new ConsoleBrowser();
    for (let i = 0; i < 5; i++) expect((await browser.signIn(partner, `wrong-${i}`)).status).toBe(400);
    const sixth = await browser.signIn(partner);
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(sixth.text).toContain("Too many failed sign-ins");
    expect(browser.cookies.has("console-session")).toBe(false);
    // The same count holds for the API's login.
    const api = await call("POST", "/authentication/v1/partner", {
      body: { username: partner.username, password: partner.password },
    });
    expect(api.status).toBe(429);
  });

  it("counts the API's failed logins against the console too", async () => {
    const partner = await createPartner();
    for (let i = 0; i < 5; i++) {
      const res = await call("POST", "/authentication/v1/partner", {
        body: { username: partner.username, password: `wrong-${i}` },
      });
      expect(res.status).toBe(400);
    }
    expect((await new ConsoleBrowser().signIn(partner)).status).toBe(429);
  });

  it("holds the per-address throttle too: the twenty-first failure from one address is refused", async () => {
    const address = `198.51.100.${Math.floor(Math.random() * 250)}`;
    const browser = new ConsoleBrowser(undefined, { "CF-Connecting-IP": address });
    for (let i = 0; i < 20; i++) {
      expect((await browser.signIn({ username: `nobody-${i}-${address}`, password: "wrong" })).status).toBe(400);
    }
    const partner = await createPartner();
    const refused = await browser.signIn(partner);
    expect(refused.status).toBe(429);
    // This user name never failed: the page says the sign-in is paused, naming no user name.
    expect(refused.text).toMatch(
      /Signing in is paused after too many failed attempts\. Please try again in \d+ minutes?\./,
    );
  });

  it("refuses a sign-in form posted without its CSRF token, or with another browser's", async () => {
    const partner = await createPartner();
    const browser = new ConsoleBrowser();
    await browser.get(SIGN_IN);
    const without = await browser.post(SIGN_IN, { username: partner.username, password: partner.password });
    expect(without.status).toBe(403);
    expect(without.text).toContain("This form has expired");
    const other = formFields((await new ConsoleBrowser().get(SIGN_IN)).html, SIGN_IN);
    const foreign = await browser.post(SIGN_IN, { ...other, username: partner.username, password: partner.password });
    expect(foreign.status).toBe(403);
    expect(browser.cookies.has("console-session")).toBe(false);
    expect((await browser.signIn(partner)).status).toBe(303);
  });

  it("sends a signed-in browser on from the sign-in page to the applications", async () => {
    const partner = await createPartner();
    const browser = new ConsoleBrowser();
    await browser.signIn(partner);
    const res = await browser.get(SIGN_IN);
    expect(res.status).toBe(303);
    expect(res.location).toBe("/console/applications");
  });

  it("signs out: the session ends on the server, so its cookie sent again finds nothing", async () => {
    const partner = await createPartner();
    const browser = new ConsoleBrowser();
    await browser.signIn(partner);
    const id = browser.cookies.get("console-session")!;
    const res = await browser.submit("/console/applications", "/console/sign-out");
    expect(res.status).toBe(303);
    expect(res.location).toBe(SIGN_IN);
    expect(browser.cookies.has("console-session")).toBe(false);
    const again = new ConsoleBrowser();
    again.cookies.set("console-session", id);
    expect((await again.get("/console/applications")).location).toBe(SIGN_IN);
  });
});
