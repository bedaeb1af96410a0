import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openSecret } from "../../src/auth/crypto";
import { newId } from "../../src/ids";
import { signIn } from "../support/api";
import { formFields, signedInBrowser } from "../support/console";
import { countRows, createApplication } from "../support/factories";
import { failedEvent, firstEvent, queuedEventIds, T0, useNotificationHarness } from "../support/notifications";
import { dbOf } from "../support/shards";

useNotificationHarness();

const PAGE = "/console/notifications";
const REPLAY = "/console/notifications/replay";
const ROTATE = "/console/notification-secret/rotate";
const HOUR = 3_600_000;

/** A datetime-local value on the service's clock (UTC in the tests). */
const local = (ms: number) => new Date(ms).toISOString().slice(0, 16);

describe("/console/notifications", () => {
  it("lists the partner's delivery log with each event's delivery, and filters it", async () => {
    const { partner, token } = await signIn();
    const failed = await failedEvent(token, T0.getTime() - HOUR);
    const pending = await createApplication(token);
    const foreign = await createApplication((await signIn()).token);
    const browser = await signedInBrowser(partner);
    const all = await browser.get(PAGE);
    expect(all.status).toBe(200);
    expect(all.html).toContain(failed.applicationId);
    expect(all.html).toContain(pending.id);
    expect(all.html).not.toContain(foreign.id);
    expect(all.text).toContain("FAILED 0 attempts 72 hours without a 2xx");
    const onlyFailed = await browser.get(`${PAGE}?status=FAILED`);
    expect(onlyFailed.html).toContain(failed.applicationId);
    expect(onlyFailed.html).not.toContain(pending.id);
    const byApplication = await browser.get(`${PAGE}?applicationId=${pending.id}`);
    expect(byApplication.html).not.toContain(failed.applicationId);
    expect(byApplication.html).toContain(pending.id);
    const invalid = await browser.get(`${PAGE}?from=yesterday`);
    expect(invalid.status).toBe(400);
    expect(invalid.text).toContain("From must be a date such as 2026-11-23.");
    const withTime = await browser.get(`${PAGE}?to=2026-11-23T10:00`);
    expect(withTime.status).toBe(400);
    expect(withTime.text).toContain("To must be a date such as 2026-11-23.");
  });

  it("shows each event's number of delivery attempts and its last one", async () => {
    const { partner, token } = await signIn();
    const failed = await failedEvent(token, T0.getTime() - HOUR);
    await dbOf(partner).batch(
      Array.from({ length: 7 }, (_, n) =>
        dbOf(partner)
          .prepare(
            "INSERT INTO notification_attempts (id, event_id, attempted_at, http_status, duration_ms) VALUES (?, ?, ?, ?, 40)",
          )
          .bind(newId(T0.getTime() - HOUR + n * 1000), failed.eventId, T0.getTime() - HOUR + n * 1000, 500 + n),
      ),
    );
    const res = await (await signedInBrowser(partner)).get(PAGE);
    expect(res.text).toContain("FAILED 7 attempts 72 hours without a 2xx");
    expect(res.text).toContain(
      `${new Date(T0.getTime() - HOUR + 6000).toISOString().slice(0, 19).replace("T", " ")} HTTP 506, 40 ms`,
    );
  });

  it("replays the FAILED notifications of a time range, once per form, with the API's limit of one a minute", async () => {
    const { partner, token } = await signIn();
    const inRange = await failedEvent(token, T0.getTime() - 2 * HOUR);
    const tooEarly = await failedEvent(token, T0.getTime() - 10 * HOUR);
    const sentIds = queuedEventIds();
    const browser = await signedInBrowser(partner);
    const fields = { ...formFields((await browser.get(PAGE)).html, REPLAY), from: local(T0.getTime() - 5 * HOUR) };
    const [first, second] = await Promise.all([browser.post(REPLAY, fields), browser.post(REPLAY, fields)]);
    expect(first.status).toBe(200);
    expect(first.text).toContain("1 failed notification was put back in delivery.");
    expect(second.html).toBe(first.html);
    expect(sentIds()).toEqual([inRange.eventId]);
    expect((await firstEvent(inRange.applicationId)).status).toBe("PENDING");
    expect((await firstEvent(tooEarly.applicationId)).status).toBe("FAILED");

    const again = await browser.submit(PAGE, REPLAY, { from: local(T0.getTime() - 20 * HOUR) });
    expect(again.status).toBe(429);
    expect(again.text).toContain("One replay per 1 minute: please try again in");
    expect(sentIds()).toHaveLength(1);
  });

  it("refuses a replay range that ends before it starts, replaying nothing", async () => {
    const { partner } = await signIn();
    const sentIds = queuedEventIds();
    const browser = await signedInBrowser(partner);
    const res = await browser.submit(PAGE, REPLAY, { from: local(T0.getTime()), to: local(T0.getTime() - HOUR) });
    expect(res.status).toBe(400);
    expect(res.text).toContain("the end after the start");
    expect(sentIds()).toEqual([]);
    // Answered before the form's one-time token is taken: nothing is kept of it.
    expect(await countRows("idempotency_keys", "partner_id = ?", partner.id)).toBe(0);
  });

  it("rotates the signing secret: shown once, with a copy button and the overlap, never in a URL", async () => {
    const { partner } = await signIn();
    const browser = await signedInBrowser(partner);
    const before = await browser.get(PAGE);
    expect(before.text).toContain("For 24 hours afterwards the previous secret signs too");
    const fields = formFields(before.html, ROTATE);
    const res = await browser.post(ROTATE, fields);
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const secret = /id="new-secret" class="secret" readonly="" value="(whsec_[^"]+)"/.exec(res.html)?.[1];
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.html).toContain('<button type="button" data-copy="new-secret" hidden="">');
    expect(res.html).toContain('<script src="/console/assets/copy.js" defer=""></script>');
    expect(res.text).toContain("notifications are signed with both the new and the previous secret");
    const row = await dbOf(partner)
      .prepare(
        "SELECT signing_secret_ciphertext AS current, previous_signing_secret_expires_at AS until FROM partners WHERE id = ?",
      )
      .bind(partner.id)
      .first<{ current: string; until: number }>();
    expect(await openSecret(row!.current, env.AUTH_PEPPER, "signing-secret")).toBe(secret);
    expect(row!.until).toBe(T0.getTime() + 24 * HOUR);
    // The same form again (a reload, a double-click): the same secret, no second rotation.
    const again = await browser.post(ROTATE, fields);
    expect(again.html).toContain(secret);
    const after = await dbOf(partner)
      .prepare("SELECT signing_secret_ciphertext AS current FROM partners WHERE id = ?")
      .bind(partner.id)
      .first<{ current: string }>();
    expect(after!.current).toBe(row!.current);
    // Back on the page: the secret is not shown, the earlier one's overlap is.
    const page = await browser.get(PAGE);
    expect(page.html).not.toContain(secret!);
    expect(page.text).toContain("An earlier secret still signs until");
  });

  it("refuses a third rotation while two earlier secrets still sign, in words, unless asked to stop the oldest", async () => {
    const { partner } = await signIn();
    const browser = await signedInBrowser(partner);
    for (let i = 0; i < 2; i++) expect((await browser.submit(PAGE, ROTATE)).status).toBe(200);
    const refused = await browser.submit(PAGE, ROTATE);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain("The secret was not rotated");
    expect(refused.text).toContain("(ROTATION_LIMIT_REACHED)");
    expect((await browser.submit(PAGE, ROTATE, { force: "yes" })).status).toBe(200);
  });
});
