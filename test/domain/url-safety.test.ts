import { describe, expect, it } from "vitest";
import { merchantUrlProblems, unsafeUrlReason } from "../../src/domain/url-safety";
import { HOSTILE_URLS } from "../support/hostile-urls";

const DEPLOYED = { requireHttps: true, allowedPorts: [] };
const LOCAL = { requireHttps: false, allowedPorts: [] };

describe("unsafeUrlReason where HTTPS is required", () => {
  it.each(HOSTILE_URLS)("refuses %s (%s)", (url) => {
    expect(unsafeUrlReason(url, DEPLOYED)).toBeDefined();
  });

  it.each([
    "https://shop.example.com/notify",
    "https://shop.example.com:443/notify?x=1",
    "https://SHOP.example.com./notify",
    "https://8.8.8.8/hook",
    "https://[2606:4700:4700::1111]/hook",
    "https://xn--bcher-kva.example/hook",
  ])("accepts %s", (url) => {
    expect(unsafeUrlReason(url, DEPLOYED)).toBeUndefined();
  });

  it("accepts a port an operator allows", () => {
    expect(
      unsafeUrlReason("https://shop.example.com:8443/", { requireHttps: true, allowedPorts: [8443] }),
    ).toBeUndefined();
  });

  it("says why, naming the range", () => {
    expect(unsafeUrlReason("https://169.254.169.254/", DEPLOYED)).toBe(
      "must point at a public host, not a link-local address",
    );
    expect(unsafeUrlReason("https://[::ffff:10.0.0.1]/", DEPLOYED)).toBe(
      "must point at a public host, not a private address",
    );
    expect(unsafeUrlReason("https://a@shop.example.com/", DEPLOYED)).toBe("must not carry a user name or password");
  });
});

describe("unsafeUrlReason in local development (HTTPS not required)", () => {
  it.each([
    "http://127.0.0.1:4000/hook",
    "http://localhost:3000/notify",
    "http://[::1]:8080/",
    "https://localhost/",
  ])("accepts a receiver on this machine: %s", (url) => {
    expect(unsafeUrlReason(url, LOCAL)).toBeUndefined();
  });

  it.each([
    "https://10.0.0.1/",
    "http://169.254.169.254/",
    "http://192.168.0.10:8080/",
    "http://u:p@127.0.0.1/",
  ])("still refuses anything else inside a network: %s", (url) => {
    expect(unsafeUrlReason(url, LOCAL)).toBeDefined();
  });
});

describe("merchantUrlProblems", () => {
  it("names each unsafe URL at its attribute", () => {
    expect(
      merchantUrlProblems(
        {
          approvedRedirect: "https://shop.example.com/ok",
          rejectedRedirect: "https://10.0.0.1/",
          notificationEndpoint: "https://localhost/",
        },
        DEPLOYED,
      ).map((p) => [p.code, p.attribute]),
    ).toEqual([
      ["INVALID_VALUE", "merchantUrls.rejectedRedirect"],
      ["INVALID_VALUE", "merchantUrls.notificationEndpoint"],
    ]);
  });
});
