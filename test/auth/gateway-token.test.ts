import { describe, expect, it } from "vitest";
import {
  GATEWAY_TOKENS_KEPT,
  gatewayToken,
  gatewayTokenMatches,
  gatewayTokensHeld,
} from "../../src/auth/gateway-token";

/** HMAC-SHA256(pepper, "gateway/v1:<id>") in hex, first 40 characters, computed here without the module. */
async function expected(pepper: string, applicationId: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", encoder.encode(pepper), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(`gateway/v1:${applicationId}`)));
  return [...mac]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("")
    .slice(0, 40);
}

describe("gateway tokens", () => {
  it("are HMAC(pepper, application id), the same when derived again from the isolate's copy", async () => {
    const id = "01JGATEWAYTOKEN0000000000001";
    const first = await gatewayToken("pepper-one", id);
    expect(first).toBe(await expected("pepper-one", id));
    expect(await gatewayToken("pepper-one", id)).toBe(first);
    expect(await gatewayTokenMatches("pepper-one", id, first)).toBe(true);
    const altered = first.replace(/.$/, (c) => (c === "0" ? "1" : "0"));
    expect(await gatewayTokenMatches("pepper-one", id, altered)).toBe(false);
  });

  it("follow a change of pepper: none derived with the old one is answered", async () => {
    const id = "01JGATEWAYTOKEN0000000000002";
    const old = await gatewayToken("pepper-old", id);
    const rotated = await gatewayToken("pepper-new", id);
    expect(rotated).toBe(await expected("pepper-new", id));
    expect(rotated).not.toBe(old);
    expect(await gatewayTokenMatches("pepper-new", id, old)).toBe(false);
  });

  it("are kept up to the bound: the oldest goes, and is derived again exactly when asked", async () => {
    const pepper = "pepper-bound";
    const ids = Array.from({ length: GATEWAY_TOKENS_KEPT + 100 }, (_, i) => `01JBOUND${String(i).padStart(20, "0")}`);
    for (const id of ids) await gatewayToken(pepper, id);
    expect(gatewayTokensHeld()).toBe(GATEWAY_TOKENS_KEPT);
    for (const id of [ids[0]!, ids[99]!, ids[100]!, ids.at(-1)!]) {
      expect(await gatewayToken(pepper, id)).toBe(await expected(pepper, id));
    }
    expect(gatewayTokensHeld()).toBe(GATEWAY_TOKENS_KEPT);
  });
});
