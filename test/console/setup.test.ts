import { describe, expect, it, vi } from "vitest";
import { totpCode } from "../../src/domain/totp";
import { createPartner } from "../support/api";
import { ConsoleBrowser, formFields } from "../support/console";
import { auditRows, personBrowser } from "../support/people";
import { dbHolding } from "../support/shards";

/** An admin adds a person with the role: the setup link the page shows once. */
async function setupLinkOf(admin: ConsoleBrowser, email: string, role = "SUPPORT"): Promise<string> {
  const res = await admin.submit("/console/people", "/console/people", { email, role });
  expect(res.status).toBe(200);
  return /value="(http[^"]+\/console\/setup\/\d+\.[A-Za-z0-9_-]{43})"/.exec(res.html)![1]!;
}

/** Opens the link and answers its page, the secret it shows and the form's fields. */
async function openLink(browser: ConsoleBrowser, link: string) {
  const page = await browser.get(link);
  const secret = /id="totp-secret" class="secret" readonly="" value="([A-Z2-7]+)"/.exec(page.html)?.[1];
  return { page, secret, fields: page.status === 200 ? formFields(page.html, new URL(link).pathname) : {} };
}

describe("a setup link", () => {
  it("shows the account, the e-mail, a QR code and the secret as text, and sets up the sign-in once", async () => {
    const partner = await createPartner();
    const { browser: admin } = await personBrowser(partner, "ADMIN");
    const link = await setupLinkOf(admin, "Nova@Shop.Example");
    const person = new ConsoleBrowser();
    const { page, secret, fields } = await openLink(person, link);
    expect(page.status).toBe(200);
    expect(page.text).toContain(partner.username);
    expect(page.text).toContain("nova@shop.example");
    expect(page.html).toMatch(/<svg class="qr" role="img" aria-label="QR code of your authenticator secret"/);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(page.headers.get("Cache-Control")).toBe("no-store");
    const done = await person.post(new URL(link).pathname, {
      ...fields,
      password: "a long enough password",
      repeat: "a long enough password",
      code: totpCode(secret!, Date.now()),
    });
    expect(done.status).toBe(303);
    expect(done.location).toBe("/console/applications");
    // Signed in as the person, with their role.
    expect((await person.get("/console/account")).text).toMatch(/nova@shop\.example Role SUPPORT/);
    // Stored: the password's hash and the secret sealed, never the secret or the token.
    const row = await (await dbHolding("console_people", "nova@shop.example", "email"))
      .prepare("SELECT * FROM console_people WHERE email = ?")
      .bind("nova@shop.example")
      .first<Record<string, unknown>>();
    expect(row).toMatchObject({ setup_token_hash: null, setup_expires_at: null, totp_last_step: expect.any(Number) });
    expect(String(row!.password_hash)).toMatch(/^pbkdf2-sha256\$100000\$/);
    expect(String(row!.totp_secret_ciphertext)).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(link.split("/").at(-1));
    // The link works once: opened or posted again, it is gone.
    const again = await openLink(new ConsoleBrowser(), link);
    expect(again.page.status).toBe(404);
    expect(again.page.text).toContain("This setup link does not work");
    const reposted = await person.post(new URL(link).pathname, {
      ...fields,
      password: "another long password",
      repeat: "another long password",
      code: totpCode(secret!, Date.now()),
    });
    // Its form sent again (its sign-in cookie went with the setup) changes nothing.
    expect(reposted.status).toBe(403);
    const after = await (await dbHolding("console_people", "nova@shop.example", "email"))
      .prepare("SELECT password_hash FROM console_people WHERE email = ?")
      .bind("nova@shop.example")
      .first();
    expect(after).toEqual({ password_hash: row!.password_hash });
    const logged = (await auditRows(partner.id)).filter((r) => r.operation === "completeSetup");
    expect(logged).toEqual([
      expect.objectContaining({ actor_type: "PERSON", actor_name: "nova@shop.example", outcome: "SUCCEEDED" }),
    ]);
  });

  it("refuses a wrong code and a short or mistyped password in words, and keeps the link", async () => {
    const partner = await createPartner();
    const { browser: admin } = await personBrowser(partner, "ADMIN");
    const link = await setupLinkOf(admin, "careful@shop.example");
    const person = new ConsoleBrowser();
    const { secret, fields } = await openLink(person, link);
    const path = new URL(link).pathname;
    const good = { ...fields, password: "a long enough password", repeat: "a long enough password" };
    const code = totpCode(secret!, Date.now());
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    const refusedCode = await person.post(path, { ...good, code: wrong });
    expect(refusedCode.status).toBe(400);
    expect(refusedCode.text).toContain("The code is not the app's code now");
    const short = await person.post(path, { ...good, password: "short", repeat: "short", code });
    expect(short.status).toBe(400);
    expect(short.text).toContain("at least 12 characters");
    const mistyped = await person.post(path, { ...good, repeat: "a long enough passw0rd", code });
    expect(mistyped.text).toContain("The two passwords differ");
    expect((await person.post(path, { ...good, code })).status).toBe(303);
  });

  it("ends after a day, and refuses a token that was never one", async () => {
    const partner = await createPartner();
    const { browser: admin } = await personBrowser(partner, "ADMIN");
    const link = await setupLinkOf(admin, "late@shop.example");
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 24 * 3600 * 1000 + 1000);
    try {
      expect((await new ConsoleBrowser().get(link)).status).toBe(404);
    } finally {
      vi.useRealTimers();
    }
    // A shard no binding has, and one past any a link can name, are no links either.
    for (const token of [
      "x".repeat(43),
      `0.${"x".repeat(43)}`,
      `9.${"x".repeat(43)}`,
      `1000.${"x".repeat(43)}`,
      "short",
      "..%2F..%2Fetc",
    ]) {
      expect((await new ConsoleBrowser().get(`/console/setup/${token}`)).status).toBe(404);
    }
    expect((await admin.get("/console/people")).text).toContain("Setup link valid until");
  });
});
