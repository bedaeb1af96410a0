import { describe, expect, it } from "vitest";
import { call } from "../../support/api";

describe("the reference page", () => {
  it("GET /docs renders a reference page from the same document", async () => {
    const res = await call("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain("/authentication/v1/partner");
    expect(page).toContain("Log in and obtain an access token");
    expect(page).not.toContain("<script");
  });
});
