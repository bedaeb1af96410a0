import { createExecutionContext, SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../src/app";
import { MAX_BODY_BYTES } from "../src/http/body-limit";
import { BASE, call, createPartner, json, send, signIn } from "./support/api";
import { applicationCount, applicationRequest } from "./support/factories";

const LOGIN = "/authentication/v1/partner";
afterEach(() => {
  vi.useRealTimers();
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("HTTPS", () => {
  it("refuses plain HTTP with 403 https_required where REQUIRE_HTTPS is on", async () => {
    const res = await call("GET", "/v1/health", { vars: { REQUIRE_HTTPS: "true" } });
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({ error: "https_required", requestId: res.headers.get("X-Request-Id") });
  });

  it("serves HTTPS where REQUIRE_HTTPS is on", async () => {
    const res = await call("GET", "https://api.test/v1/health", { vars: { REQUIRE_HTTPS: "true" } });
    expect(res.status).toBe(200);
  });

  it("refuses a login over plain HTTP before looking at the credentials", async () => {
    const partner = await createPartner();
    const res = await call("POST", LOGIN, {
      body: { username: partner.username, password: partner.password },
      vars: { REQUIRE_HTTPS: "true" },
    });
    expect(res.status).toBe(403);
    const tokens = await env.DB.prepare("SELECT COUNT(*) AS n FROM access_tokens WHERE partner_id = ?")
      .bind(partner.id)
      .first<{ n: number }>();
    expect(tokens!.n).toBe(0);
  });
});

describe("the error envelope", () => {
  it("answers 404 not_found for an unknown route", async () => {
    const res = await call("GET", "/nowhere");
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({
      error: "not_found",
      error_description: "route not found",
      requestId: res.headers.get("X-Request-Id"),
    });
  });

  it("answers 415 unsupported_media_type for a non-JSON body", async () => {
    const res = await call("POST", "/authentication/v1/partner", {
      body: "username=a&password=b",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(415);
    expect(await json(res)).toMatchObject({ error: "unsupported_media_type" });
  });

  it("answers 400 invalid_request with MALFORMED_JSON for broken JSON", async () => {
    const res = await call("POST", "/authentication/v1/partner", { body: '{"username": ' });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      error: "invalid_request",
      errors: [{ code: "MALFORMED_JSON", severity: "ERROR" }],
    });
  });

  it("answers 400 MALFORMED_JSON for a body that is not valid UTF-8, and creates nothing", async () => {
    const { partner, token } = await signIn();
    const bytes = new TextEncoder().encode(JSON.stringify(applicationRequest()));
    const broken = new Uint8Array([...bytes.slice(0, 40), 0xc3, 0x28, ...bytes.slice(40)]);
    const raw = await send(`${BASE}/financing/v1/applications`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: broken,
    });
    expect(raw.status).toBe(400);
    expect(await json(raw)).toMatchObject({
      errors: [{ code: "MALFORMED_JSON", message: "request body is not valid UTF-8" }],
    });
    expect(await applicationCount(partner.id)).toBe(0);
  });

  it("answers 400 INVALID_VALUE at the attribute for a lone UTF-16 surrogate, and creates nothing", async () => {
    const { partner, token } = await signIn();
    const body = JSON.stringify(applicationRequest()).replace("Jana Nováková", "Jana \\ud800 Nováková");
    const res = await call("POST", "/financing/v1/applications", { token, body });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      errors: [{ code: "INVALID_VALUE", attribute: "customer.fullName" }],
    });
    expect(await applicationCount(partner.id)).toBe(0);
    // A real character outside the BMP (a surrogate pair) is just text.
    const emoji = JSON.stringify(applicationRequest()).replace("Jana Nováková", "Jana \\ud83d\\ude00");
    expect((await call("POST", "/financing/v1/applications", { token, body: emoji })).status).toBe(201);
    // Upper-case escapes and one in a key are found too; an escaped backslash before "ud800" is just text.
    const upper = JSON.stringify(applicationRequest()).replace('"fullName"', '"full\\uDC00Name"');
    const inKey = await call("POST", "/financing/v1/applications", { token, body: upper });
    expect(inKey.status).toBe(400);
    expect(await json(inKey)).toMatchObject({
      errors: [{ code: "INVALID_VALUE", attribute: "customer.full\uDC00Name" }],
    });
    const text = JSON.stringify(applicationRequest()).replace("Jana Nováková", "Jana \\\\ud800");
    expect((await call("POST", "/financing/v1/applications", { token, body: text })).status).toBe(201);
  });

  it("answers 400, not 500, to a body the client cut short", async () => {
    const { token } = await signIn();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"totalPrice": {"amou'));
        controller.error(new Error("Network connection lost."));
      },
    });
    vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await createApp().request(
      `${BASE}/financing/v1/applications/01J000000000000000000000000/refunds`,
      {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit,
      env,
      createExecutionContext(),
    );
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      errors: [{ code: "INVALID_REQUEST", message: "the request body could not be read to its end" }],
    });
  });

  it("answers 413 request_too_large when Content-Length announces more than 10 MB", async () => {
    const res = await call("POST", "/authentication/v1/partner", { body: "x".repeat(MAX_BODY_BYTES + 1) });
    expect(res.status).toBe(413);
    expect(await json(res)).toMatchObject({ error: "request_too_large" });
  });

  it("answers 413 for a streamed body over 10 MB without Content-Length", async () => {
    const chunk = new Uint8Array(1024 * 1024).fill(32);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > MAX_BODY_BYTES) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const res = await SELF.fetch(`${BASE}/authentication/v1/partner`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: stream,
    });
    expect(res.status).toBe(413);
    expect(await json(res)).toMatchObject({ error: "request_too_large" });
  });

  describe("a body over 10 MB announced by Content-Length", () => {
    const CHUNK = 1024 * 1024;
    /** A body of 12 chunks that counts what the Worker reads of it. */
    function countedBody() {
      const body = { read: 0, total: 12 * CHUNK };
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (body.read >= body.total) return controller.close();
          body.read += CHUNK;
          controller.enqueue(new Uint8Array(CHUNK).fill(32));
        },
      });
      const init = {
        method: "POST",
        headers: { "Content-Type": "application/json", "Content-Length": String(body.total) },
        body: stream,
      };
      return { body, init };
    }

    it("is refused with 413 before the Worker reads it", async () => {
      const { body, init } = countedBody();
      const res = await send(`${BASE}${LOGIN}`, init, {});
      expect(res.status).toBe(413);
      expect(await json(res)).toMatchObject({ error: "request_too_large" });
      // What the stream queued on its own before anyone read; far from the whole body.
      expect(body.read).toBeLessThanOrEqual(CHUNK);
    });

    it("is read to its end before the 413 leaves where DRAIN_UNREAD_BODIES is on (npm start)", async () => {
      const { body, init } = countedBody();
      const res = await send(`${BASE}${LOGIN}`, init, { DRAIN_UNREAD_BODIES: "true" });
      expect(res.status).toBe(413);
      expect(await json(res)).toMatchObject({ error: "request_too_large" });
      expect(body.read).toBe(body.total);
    });
  });

  it("accepts a body of exactly 10 MB (then judges its content)", async () => {
    const padding = " ".repeat(MAX_BODY_BYTES - 2);
    const res = await call("POST", "/authentication/v1/partner", { body: `{}${padding}` });
    expect(res.status).toBe(400);
  });

  it("answers 500 server_error without internals when something of ours fails", async () => {
    const { token } = await signIn();
    const broken = {
      prepare: () => {
        throw new Error("SQLITE_CORRUPT: secret detail");
      },
    } as unknown as D1Database;
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await call("POST", "/authentication/v1/partner", {
      body: { username: "someone", password: "something" },
      vars: { DB: broken },
      token,
    });
    expect(res.status).toBe(500);
    const body = await json(res);
    expect(body).toEqual({
      error: "server_error",
      error_description: "internal error; quote the requestId when reporting it",
      requestId: res.headers.get("X-Request-Id"),
    });
    // The fault is logged with the request id, for us.
    expect(error.mock.calls.map((c) => String(c[0])).join()).toContain(res.headers.get("X-Request-Id")!);
  });
});

describe("every response", () => {
  it("carries a request id, also in the error body", async () => {
    const ok = await call("GET", "/v1/health");
    const missing = await call("GET", "/nowhere");
    expect(ok.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    expect((await json(missing)).requestId).toBe(missing.headers.get("X-Request-Id"));
    expect(ok.headers.get("X-Request-Id")).not.toBe(missing.headers.get("X-Request-Id"));
  });

  it("carries secure headers, also an error", async () => {
    for (const res of [await call("GET", "/v1/health"), await call("GET", "/nowhere")]) {
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(res.headers.get("Strict-Transport-Security")).toContain("max-age=");
      expect(res.headers.get("X-Frame-Options")).toBe("SAMEORIGIN");
    }
  });

  it("is logged as one JSON line without secrets", async () => {
    const log = vi.spyOn(console, "log");
    const { partner, token } = await signIn();
    await call("GET", "/financing/v1/applications/unknown", { token });
    const lines = log.mock.calls.map((c) => String(c[0]));
    const last = JSON.parse(lines.at(-1)!);
    expect(last).toMatchObject({ level: "info", partnerId: partner.id, method: "GET", status: 404 });
    expect(typeof last.durationMs).toBe("number");
    expect(last.requestId).toBeTruthy();
    const all = lines.join("\n");
    expect(all).not.toContain(token);
    expect(all).not.toContain(partner.password);
  });
});
