import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../../build/document";
import { OPENAPI_DOCUMENT, OPENAPI_ETAG } from "../../../generated/openapi-document";
import { call } from "../../support/api";

describe("GET /openapi.json", () => {
  it("serves, byte for byte, the document the code builds here in workerd, as the build wrote it", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const body = await res.text();
    expect(body).toBe(OPENAPI_DOCUMENT);
    // The build writes the document in Node (the test run's global setup too); the code here builds it in
    // workerd. A difference between the two runtimes' documents fails here.
    expect(body === JSON.stringify(await openApiDocument())).toBe(true);
  });

  it("carries a strong ETag of its bytes and may be kept for five minutes", async () => {
    const res = await call("GET", "/openapi.json");
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(await res.text()));
    const base64url = btoa(String.fromCharCode(...new Uint8Array(digest)))
      .replaceAll("+", "-")
      .replaceAll("/", "_")
      .replace(/=+$/, "");
    expect(res.headers.get("ETag")).toBe(`"${base64url}"`);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=300");
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
  });

  it.each([
    ["its ETag", OPENAPI_ETAG],
    ["its ETag as a weak one", `W/${OPENAPI_ETAG}`],
    ["its ETag in a list", `"stale", ${OPENAPI_ETAG}`],
    ["*", "*"],
  ])("answers 304 without a body to If-None-Match: %s", async (_, ifNoneMatch) => {
    const res = await call("GET", "/openapi.json", { headers: { "If-None-Match": ifNoneMatch } });
    expect(res.status).toBe(304);
    expect(await res.text()).toBe("");
    expect(res.headers.get("ETag")).toBe(OPENAPI_ETAG);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=300");
  });

  it.each([
    ["another ETag", '"stale"'],
    ["a prefix of its ETag", OPENAPI_ETAG.slice(0, 10)],
    ["an empty header", ""],
  ])("answers the whole document to If-None-Match: %s", async (_, ifNoneMatch) => {
    const res = await call("GET", "/openapi.json", { headers: { "If-None-Match": ifNoneMatch } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(OPENAPI_DOCUMENT);
  });
});
