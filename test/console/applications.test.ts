import { describe, expect, it, onTestFinished, vi } from "vitest";
import { newId } from "../../src/ids";
import { signIn } from "../support/api";
import { signedInBrowser } from "../support/console";
import { applicationRequest, createApplication, forceState } from "../support/factories";
import { approvedWithTotal } from "../support/orders";

const LIST = "/console/applications";

/** A signed-in partner with three applications of its own, and another partner with one. */
async function partnerWithApplications() {
  const { partner, token } = await signIn();
  const tag = newId().slice(-8);
  const bodies = [
    applicationRequest({ orderNumber: `A-${tag}-1`, email: `first-${tag}@example.com` }),
    applicationRequest({ orderNumber: `A-${tag}-2`, email: `second-${tag}@example.com` }),
    applicationRequest({ orderNumber: `A-${tag}-3`, email: `third-${tag}@example.com`, type: "PAY_IN_THREE" }),
  ];
  bodies[1]!.order.variableSymbols = ["7712345"];
  const apps = [];
  for (const body of bodies) apps.push(await createApplication(token, body));
  await forceState(apps[2]!.id, "READY", "READY_TO_SHIP");
  const other = await signIn();
  const foreign = await createApplication(other.token, applicationRequest({ orderNumber: `A-${tag}-1` }));
  return { browser: await signedInBrowser(partner), apps, tag, foreign };
}

const orderNumbersShown = (html: string) =>
  [...html.matchAll(/<a href="\/console\/applications\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);

describe("GET /console/applications", () => {
  it("lists the partner's applications newest first, each with created, order, customer, type, financed total, state and deadline", async () => {
    const { browser, apps, tag } = await partnerWithApplications();
    const page = await browser.get(LIST);
    expect(page.status).toBe(200);
    expect(orderNumbersShown(page.html)).toEqual([`A-${tag}-3`, `A-${tag}-2`, `A-${tag}-1`]);
    for (const heading of ["Created", "Order", "Customer", "Type", "Financed", "State", "Deadline"]) {
      expect(page.html).toContain(`<th scope="col"${heading === "Financed" ? ' class="num"' : ""}>${heading}</th>`);
    }
    expect(page.text).toContain(`Jana Nováková third-${tag}@example.com Pay in three CZK 2,000.00 READY READY_TO_SHIP`);
    expect(page.text).toContain(
      `Jana Nováková first-${tag}@example.com Pay later CZK 2,000.00 PROCESSING PROCESSING_REDIRECT_NEEDED`,
    );
    // A waiting application's deadline is the customer's: shown as a date and time.
    expect(page.html).toMatch(
      new RegExp(`${apps[0]!.id}">A-${tag}-1</a>[\\s\\S]*?<time datetime="\\d{4}-\\d{2}-\\d{2}T`),
    );
  });

  it.each([
    ["its order number", (tag: string) => `A-${tag}-2`],
    ["the customer's e-mail, in any case", (tag: string) => `SECOND-${tag}@Example.com`],
    ["a variable symbol", () => "7712345"],
  ])("finds an application by %s from one search box", async (_, query) => {
    const { browser, tag } = await partnerWithApplications();
    const page = await browser.get(`${LIST}?q=${encodeURIComponent(query(tag))}`);
    expect(page.status).toBe(200);
    expect(orderNumbersShown(page.html)).toEqual([`A-${tag}-2`]);
  });

  it("finds an application by its id, and never another partner's with the same order number", async () => {
    const { browser, apps, tag, foreign } = await partnerWithApplications();
    expect(orderNumbersShown((await browser.get(`${LIST}?q=${apps[1]!.id}`)).html)).toEqual([`A-${tag}-2`]);
    const byNumber = await browser.get(`${LIST}?q=A-${tag}-1`);
    expect(orderNumbersShown(byNumber.html)).toEqual([`A-${tag}-1`]);
    expect(byNumber.html).not.toContain(foreign.id);
    expect(orderNumbersShown((await browser.get(`${LIST}?q=${foreign.id}`)).html)).toEqual([]);
  });

  it("filters by state and by creation date, in the service's time zone", async () => {
    // Late in the day on a fixed clock: "today" cannot turn into tomorrow while the test runs.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.parse("2027-03-01T23:30:00Z"));
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { browser, tag } = await partnerWithApplications();
    expect(orderNumbersShown((await browser.get(`${LIST}?state=READY`)).html)).toEqual([`A-${tag}-3`]);
    expect(orderNumbersShown((await browser.get(`${LIST}?from=2027-03-01&to=2027-03-01`)).html)).toHaveLength(3);
    expect(orderNumbersShown((await browser.get(`${LIST}?to=2027-02-28`)).html)).toEqual([]);
    expect(orderNumbersShown((await browser.get(`${LIST}?from=2027-03-02`)).html)).toEqual([]);
    const invalid = await browser.get(`${LIST}?from=2026-02-30`);
    expect(invalid.status).toBe(400);
    expect(invalid.text).toContain("Created from must be a date such as 2026-11-23.");
    // A date and time where a date belongs is refused in words too, not a 500.
    const withTime = await browser.get(`${LIST}?to=2026-11-23T10:00`);
    expect(withTime.status).toBe(400);
    expect(withTime.text).toContain("Created to must be a date such as 2026-11-23.");
  });

  it("sorts as asked and pages with cursors, keeping the search", async () => {
    const { partner, token } = await signIn();
    const tag = newId().slice(-8);
    for (let i = 1; i <= 22; i++) {
      await createApplication(token, applicationRequest({ orderNumber: `P-${tag}-${String(i).padStart(2, "0")}` }));
    }
    const browser = await signedInBrowser(partner);
    const first = await browser.get(`${LIST}?q=&sort=createdAt`);
    expect(orderNumbersShown(first.html)).toEqual(
      Array.from({ length: 20 }, (_, i) => `P-${tag}-${String(i + 1).padStart(2, "0")}`),
    );
    const next = /<a href="([^"]+)" rel="next">/.exec(first.html)![1]!.replace(/&amp;/g, "&");
    expect(next).toMatch(/^\/console\/applications\?sort=createdAt&after=[0-9A-Z]{26}$/);
    const second = await browser.get(next);
    expect(orderNumbersShown(second.html)).toEqual([`P-${tag}-21`, `P-${tag}-22`]);
    expect(second.html).toContain('rel="prev"');
    expect(second.html).not.toContain('rel="next"');
  });

  it("sorts by the financed total it shows, and says so", async () => {
    const { partner, token } = await signIn();
    const ids = [
      await approvedWithTotal(token, 150000),
      await approvedWithTotal(token, 90000),
      await approvedWithTotal(token, 300000),
    ];
    const page = await (await signedInBrowser(partner)).get(`${LIST}?sort=-totalPrice`);
    const shown = [...page.html.matchAll(/<a href="\/console\/applications\/([0-9A-Z]{26})">/g)].map((m) => m[1]);
    expect(shown).toEqual([ids[2], ids[0], ids[1]]);
    expect([...page.text.matchAll(/CZK ([\d,.]+) READY/g)].map((m) => m[1])).toEqual([
      "3,000.00",
      "1,500.00",
      "900.00",
    ]);
    expect(page.html).toContain('<option value="-totalPrice" selected="">Highest financed total first</option>');
  });

  it("shows a customer's name as text: markup in it is escaped, never run", async () => {
    const { partner, token } = await signIn();
    const body = applicationRequest();
    body.customer.fullName = "<img src=x onerror=alert(1)>";
    await createApplication(token, body);
    const page = await (await signedInBrowser(partner)).get(LIST);
    expect(page.html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(page.html).not.toContain("<img");
    expect(page.text).toContain("<img src=x onerror=alert(1)>");
  });
});
