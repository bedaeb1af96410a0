import { describe, expect, it } from "vitest";
import { SCALAR_SCRIPT } from "../../../src/routes/system/docs";
import { call } from "../../support/api";

// That the script is served and the page renders every operation is the browser test's part
// (test/e2e): the Workers pool serves no static assets.
describe("GET /docs", () => {
  it("is the Scalar reference of /openapi.json, its script served by this Worker, nothing from a CDN", async () => {
    const res = await call("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    const page = await res.text();
    const sources = [...page.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1]);
    expect(sources).toEqual([SCALAR_SCRIPT]);
    expect(page).toMatch(/"url":\s*"\/openapi\.json"/);
    expect(page).toMatch(/"agent":\s*\{\s*"disabled":\s*true\s*\}/);
    expect(page).not.toMatch(/https?:\/\/(?!api\.test)/);
  });
});
