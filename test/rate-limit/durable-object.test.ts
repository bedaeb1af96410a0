import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../src/auth/crypto";
import { call, json, signIn } from "../support/api";
import { QUOTA, T0, tokenObject, UNKNOWN_APPLICATION, useFakeClock } from "../support/rate-limit";

useFakeClock();

describe("the token's object", () => {
  it("is named by the token's hash and holds the session, never the token", async () => {
    const { partner, token } = await signIn();
    const stored = await runInDurableObject(await tokenObject(token), (_, state) =>
      state.storage.sql.exec("SELECT * FROM session").toArray(),
    );
    expect(stored).toEqual([
      {
        id: 1,
        partner_id: partner.id,
        expires_at: T0.getTime() + 7_200_000,
        wire_profile: "DEFAULT",
        shard: partner.shard,
      },
    ]);
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it("holds the partner's wire profile as it was at login, and reads a session stored without one as DEFAULT", async () => {
    const { token } = await signIn({ wireProfile: "SKIP_PAY" });
    const now = T0.getTime();
    expect((await (await tokenObject(token)).hit(now, 10, 60, true)).session).toMatchObject({
      wireProfile: "SKIP_PAY",
    });

    // A token's object from before wire profiles: its session table has no such column.
    const old = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName("token:stored-before-wire-profiles"));
    await runInDurableObject(old, (_, state) => {
      state.storage.sql.exec(
        "CREATE TABLE session (id INTEGER PRIMARY KEY CHECK (id = 1), partner_id TEXT NOT NULL, expires_at INTEGER NOT NULL)",
      );
      state.storage.sql.exec("INSERT INTO session VALUES (1, 'P1', ?)", now + 60_000);
    });
    expect((await old.hit(now, 10, 60, true)).session).toEqual({
      partnerId: "P1",
      expiresAt: now + 60_000,
      wireProfile: "DEFAULT",
      shard: 0,
    });
  });

  it("stores nothing for a made-up token: no table, no alarm, whatever the request", async () => {
    const token = "made-up-token-0123456789abcdefghijklmnopqrstu";
    expect((await call("GET", UNKNOWN_APPLICATION, { token })).status).toBe(401);
    expect((await call("DELETE", "/authentication/v1/partner", { token })).status).toBe(401);
    const stub = await tokenObject(token);
    const tables = await runInDurableObject(stub, (_, s) =>
      s.storage.sql
        .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'")
        .toArray(),
    );
    expect(tables).toEqual([]);
    expect(await runInDurableObject(stub, (_, s) => s.storage.getAlarm())).toBeNull();
  });

  it("cleans finished windows with its alarm and deletes itself when nothing is left", async () => {
    const { token } = await signIn();
    await call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, token });
    const stub = await tokenObject(token);
    vi.setSystemTime(new Date(T0.getTime() + 60_000));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const windows = await runInDurableObject(stub, (_, s) => s.storage.sql.exec("SELECT * FROM windows").toArray());
    expect(windows).toEqual([]);
    // After expiry the session goes too, and with it the object's storage.
    vi.setSystemTime(new Date(T0.getTime() + 7_200_000));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await runInDurableObject(stub, (_, s) => s.storage.sql.databaseSize)).toBeLessThan(8192 * 4);
    expect(await runInDurableObject(stub, (_, s) => s.storage.getAlarm())).toBeNull();
    expect((await call("GET", UNKNOWN_APPLICATION, { vars: QUOTA, token })).status).toBe(401);
  });

  it("answers a revoked token with 401 at once", async () => {
    const { token } = await signIn();
    expect((await call("DELETE", "/authentication/v1/partner", { token })).status).toBe(204);
    const res = await call("GET", UNKNOWN_APPLICATION, { token });
    expect(res.status).toBe(401);
    expect(await json(res)).toMatchObject({ error: "invalid_token" });
    const row = await env.DB.prepare("SELECT revoked_at FROM access_tokens WHERE token_hash = ?")
      .bind(await sha256Hex(token))
      .first<{ revoked_at: number }>();
    expect(row!.revoked_at).toBe(T0.getTime());
  });

  it("keeps a revocation across eviction (the session is gone from storage, not only from memory)", async () => {
    const { token } = await signIn();
    expect((await call("DELETE", "/authentication/v1/partner", { token })).status).toBe(204);
    await evictDurableObject(await tokenObject(token));
    expect((await call("GET", UNKNOWN_APPLICATION, { token })).status).toBe(401);
  });
});

describe("a console session's object", () => {
  const consoleObject = async (id: string) =>
    env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`console-session:${await sha256Hex(id)}`));
  const MINUTE = 60_000;
  const session = {
    partnerId: "P1",
    shard: 1,
    idleUntil: T0.getTime() + 30 * MINUTE,
    expiresAt: T0.getTime() + 480 * MINUTE,
  };

  it("stores nothing for a made-up session id", async () => {
    const stub = await consoleObject("made-up-session-id");
    expect(await stub.useConsoleSession(T0.getTime(), 30 * MINUTE)).toBeNull();
    await stub.endConsoleSession();
    const tables = await runInDurableObject(stub, (_, s) =>
      s.storage.sql
        .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'")
        .toArray(),
    );
    expect(tables).toEqual([]);
  });

  it("moves its idle end with each use, never past its absolute end", async () => {
    const stub = await consoleObject("session-a");
    await stub.openConsoleSession(session);
    expect(await stub.useConsoleSession(T0.getTime() + 20 * MINUTE, 30 * MINUTE)).toEqual({
      ...session,
      idleUntil: T0.getTime() + 50 * MINUTE,
    });
    // Used 10 minutes before its absolute end, it stays alive until that end, not 30 minutes more.
    const ending = { ...session, expiresAt: T0.getTime() + 60 * MINUTE };
    const late = await consoleObject("session-ending");
    await late.openConsoleSession(ending);
    expect(await late.useConsoleSession(T0.getTime() + 25 * MINUTE, 30 * MINUTE)).toEqual({
      ...ending,
      idleUntil: T0.getTime() + 55 * MINUTE,
    });
    expect(await late.useConsoleSession(T0.getTime() + 50 * MINUTE, 30 * MINUTE)).toEqual({
      ...ending,
      idleUntil: ending.expiresAt,
    });
    expect(await late.useConsoleSession(ending.expiresAt, 30 * MINUTE)).toBeNull();
  });

  it("is cleaned by its alarm once idle past its end, and the object deletes itself", async () => {
    const stub = await consoleObject("session-b");
    await stub.openConsoleSession(session);
    vi.setSystemTime(new Date(session.idleUntil));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await runInDurableObject(stub, (_, s) => s.storage.getAlarm())).toBeNull();
    expect(await stub.useConsoleSession(T0.getTime(), 30 * MINUTE)).toBeNull();
  });

  it("keeps a session used since its alarm was set, and sets the alarm again for its new idle end", async () => {
    const stub = await consoleObject("session-c");
    await stub.openConsoleSession(session);
    await stub.useConsoleSession(T0.getTime() + 25 * MINUTE, 30 * MINUTE);
    vi.setSystemTime(new Date(session.idleUntil));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await runInDurableObject(stub, (_, s) => s.storage.getAlarm())).toBe(T0.getTime() + 55 * MINUTE);
    expect(await stub.useConsoleSession(T0.getTime() + 40 * MINUTE, 30 * MINUTE)).toMatchObject({ partnerId: "P1" });
  });
});
