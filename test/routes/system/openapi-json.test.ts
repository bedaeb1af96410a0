import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../../build/document";
import { OPENAPI_DOCUMENT, OPENAPI_ETAG } from "../../../generated/openapi-document";
import { BASE, call } from "../../support/api";

/** The document as served at the tests' origin: that origin first among its servers. */
const SERVED = OPENAPI_DOCUMENT.replace('"servers":[', `"servers":[{"url":"${BASE}","description":"This service"},`);
const ETAG = `${OPENAPI_ETAG.slice(0, -1)}.${encodeURIComponent(BASE)}"`;

describe("GET /openapi.json", () => {
  it("serves, byte for byte, the document the code builds here in workerd, as the build wrote it", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const body = await res.text();
    expect(body).toBe(SERVED);
    // The build writes the document in Node (the test run's global setup too); the code here builds it in
    // workerd. A difference between the two runtimes' documents fails here.
    expect(OPENAPI_DOCUMENT === JSON.stringify(await openApiDocument())).toBe(true);
  });

  it("names the service it is served by first among its servers, so that /docs tries requests there", async () => {
    const at = (origin: string) => call("GET", "/openapi.json", { headers: {}, vars: { PUBLIC_BASE_URL: origin } });
    const document = (await (await at("https://api.example.com")).json()) as { servers: { url: string }[] };
    expect(document.servers.map((s) => s.url)).toEqual([
      "https://api.example.com",
      "https://financing-partner-api.{account}.workers.dev",
      "http://127.0.0.1:8787",
    ]);
    expect((await at("https://api.example.com")).headers.get("ETag")).not.toBe(
      (await at("https://other.example.com")).headers.get("ETag"),
    );
  });

  it("carries a strong ETag of the build's document and the origin it is served at, and may be kept five minutes", async () => {
    const res = await call("GET", "/openapi.json");
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(OPENAPI_DOCUMENT));
    const base64url = btoa(String.fromCharCode(...new Uint8Array(digest)))
      .replaceAll("+", "-")
      .replaceAll("/", "_")
      .replace(/=+$/, "");
    expect(res.headers.get("ETag")).toBe(`"${base64url}.${encodeURIComponent(BASE)}"`);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=300");
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
  });

  it.each([
    ["its ETag", ETAG],
    ["its ETag as a weak one", `W/${ETAG}`],
    ["its ETag in a list", `"stale", ${ETAG}`],
    ["*", "*"],
  ])("answers 304 without a body to If-None-Match: %s", async (_, ifNoneMatch) => {
    const res = await call("GET", "/openapi.json", { headers: { "If-None-Match": ifNoneMatch } });
    expect(res.status).toBe(304);
    expect(await res.text()).toBe("");
    expect(res.headers.get("ETag")).toBe(ETAG);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=300");
  });

  it.each([
    ["another ETag", '"stale"'],
    ["a prefix of its ETag", ETAG.slice(0, 10)],
    ["the build's ETag alone", OPENAPI_ETAG],
    ["an empty header", ""],
  ])("answers the whole document to If-None-Match: %s", async (_, ifNoneMatch) => {
    const res = await call("GET", "/openapi.json", { headers: { "If-None-Match": ifNoneMatch } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(SERVED);
  });
});
