import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { call, json, signIn } from "../../support/api";
import {
  applicationWithEvent,
  partnerEndpoint,
  QUEUE,
  runBatch,
  sent,
  T0,
  useNotificationHarness,
} from "../../support/notifications";
import { dbHolding, dbOf } from "../../support/shards";

useNotificationHarness();

const ROTATE = "/financing/v1/notification-secret/rotate";
const headersOf = (req: { headers: Headers }) => Object.fromEntries(req.headers);

/** Delivers the event now and answers the request the receiver got. */
async function notify(eventId: string) {
  await (await dbHolding("events", eventId))
    .prepare("UPDATE events SET status = 'PENDING', next_attempt_at = ? WHERE id = ?")
    .bind(Date.now(), eventId)
    .run();
  const before = sent.length;
  await runBatch(QUEUE, [{ body: { eventId } }]);
  expect(sent).toHaveLength(before + 1);
  return sent.at(-1)!;
}

const verifies = (secret: string, req: { body: string; headers: Headers }) => {
  try {
    new Webhook(secret).verify(req.body, headersOf(req));
    return true;
  } catch {
    return false;
  }
};

describe("POST /financing/v1/notification-secret/rotate", () => {
  it("answers a new secret once; both secrets sign during the overlap, only the new one after it", async () => {
    const { partner, token, event } = await applicationWithEvent();
    partnerEndpoint(() => new Response(null, { status: 200 }));
    const before = await notify(event.id);
    expect(verifies(partner.signingSecret, before)).toBe(true);

    const res = await call("POST", ROTATE, { token });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const { secret, previousSecretExpiresAt } = await json<{ secret: string; previousSecretExpiresAt: string }>(res);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secret).not.toBe(partner.signingSecret);
    expect(previousSecretExpiresAt).toBe("2027-02-02T09:30:00+00:00");

    const during = await notify(event.id);
    expect(during.headers.get("webhook-signature")!.split(" ")).toHaveLength(2);
    expect(verifies(secret, during)).toBe(true);
    expect(verifies(partner.signingSecret, during)).toBe(true);

    vi.setSystemTime(T0.getTime() + 24 * 3_600_000 + 1000);
    const after = await notify(event.id);
    expect(after.headers.get("webhook-signature")!.split(" ")).toHaveLength(1);
    expect(verifies(secret, after)).toBe(true);
    expect(verifies(partner.signingSecret, after)).toBe(false);
    // The legacy signature goes on, with the API key.
    expect(after.headers.get("X-Notification-Signature")).toMatch(/^v1=[0-9a-f]{64}$/);
  });

  it("keeps the secret the partner's receivers hold through a second rotation, until its own overlap ends", async () => {
    const { partner, token, event } = await applicationWithEvent();
    partnerEndpoint(() => new Response(null, { status: 200 }));
    const first = await json<{ secret: string }>(await call("POST", ROTATE, { token }));
    vi.setSystemTime(T0.getTime() + 3_600_000);
    const second = await json<{ secret: string; previousSecretExpiresAt: string }>(
      await call("POST", ROTATE, { token }),
    );
    expect(second.previousSecretExpiresAt).toBe("2027-02-02T10:30:00+00:00");

    // All three sign: the original (its overlap runs until 09:30 tomorrow), the first and the second.
    const during = await notify(event.id);
    expect(during.headers.get("webhook-signature")!.split(" ")).toHaveLength(3);
    for (const secret of [partner.signingSecret, first.secret, second.secret])
      expect(verifies(secret, during)).toBe(true);

    // The original stops when its own overlap ends, the first when its does.
    vi.setSystemTime(T0.getTime() + 24 * 3_600_000 + 1000);
    const later = await notify(event.id);
    expect(verifies(partner.signingSecret, later)).toBe(false);
    expect(verifies(first.secret, later)).toBe(true);
    expect(verifies(second.secret, later)).toBe(true);
    vi.setSystemTime(T0.getTime() + 25 * 3_600_000 + 1000);
    const last = await notify(event.id);
    expect(last.headers.get("webhook-signature")!.split(" ")).toHaveLength(1);
    expect(verifies(second.secret, last)).toBe(true);
  });

  it("refuses a third rotation while two earlier secrets still sign (422 ROTATION_LIMIT_REACHED), unless forced", async () => {
    const { partner, token, event } = await applicationWithEvent();
    partnerEndpoint(() => new Response(null, { status: 200 }));
    const first = await json<{ secret: string }>(await call("POST", ROTATE, { token }));
    const second = await json<{ secret: string }>(await call("POST", ROTATE, { token, body: {} }));

    const refused = await call("POST", ROTATE, { token });
    expect(refused.status).toBe(422);
    expect(await json(refused)).toMatchObject({ errors: [{ code: "ROTATION_LIMIT_REACHED", attribute: "force" }] });
    const unchanged = await notify(event.id);
    for (const secret of [partner.signingSecret, first.secret, second.secret]) {
      expect(verifies(secret, unchanged)).toBe(true);
    }

    // Forced (the original leaked): it stops at once, the rest keep their overlaps.
    const forced = await json<{ secret: string }>(await call("POST", ROTATE, { token, body: { force: true } }));
    const after = await notify(event.id);
    expect(after.headers.get("webhook-signature")!.split(" ")).toHaveLength(3);
    expect(verifies(partner.signingSecret, after)).toBe(false);
    for (const secret of [first.secret, second.secret, forced.secret]) expect(verifies(secret, after)).toBe(true);
  });

  it("keeps the new secret only encrypted", async () => {
    const { partner, token } = await signIn();
    const { secret } = await json<{ secret: string }>(await call("POST", ROTATE, { token }));
    const row = await dbOf(partner).prepare("SELECT * FROM partners WHERE id = ?").bind(partner.id).first();
    expect(JSON.stringify(row)).not.toContain(secret.slice("whsec_".length));
    expect(JSON.stringify(row)).not.toContain(partner.signingSecret.slice("whsec_".length));
  });

  it("answers a retry with the same Idempotency-Key with the same secret, rotating once", async () => {
    const { partner, token, event } = await applicationWithEvent();
    const request = { token, headers: { "Idempotency-Key": "rotate-once" } };
    const first = await json<{ secret: string }>(await call("POST", ROTATE, request));
    const again = await call("POST", ROTATE, request);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await json(again)).toEqual(first);
    partnerEndpoint(() => new Response(null, { status: 200 }));
    const signed = await notify(event.id);
    expect(verifies(first.secret, signed)).toBe(true);
    expect(verifies(partner.signingSecret, signed)).toBe(true);
  });

  it("takes the overlap from SIGNING_SECRET_OVERLAP_SECONDS", async () => {
    const { token } = await signIn();
    const res = await call("POST", ROTATE, { token, vars: { SIGNING_SECRET_OVERLAP_SECONDS: "3600" } });
    expect(await json(res)).toMatchObject({ previousSecretExpiresAt: "2027-02-01T10:30:00+00:00" });
  });

  it("needs a token", async () => {
    expect((await call("POST", ROTATE)).status).toBe(401);
  });
});
