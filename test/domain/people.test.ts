import { describe, expect, it } from "vitest";
import {
  API_CREDENTIALS_OPEN_CONSOLE_UNTIL,
  apiCredentialsOpenConsole,
  MAX_PEOPLE,
  passwordProblem,
  personName,
  planAddPerson,
  planRoleChange,
} from "../../src/domain/people";

describe("a person's name", () => {
  it("is their e-mail, trimmed and in lower case", () => {
    expect(personName("  Jana.Novakova+console@Shop.Example ")).toBe("jana.novakova+console@shop.example");
  });

  it("is nothing that is not a plain address: no quotes, spaces, angle brackets or missing domain", () => {
    for (const text of [
      "",
      "jana",
      "jana@",
      "@shop.example",
      "jana@shop",
      "ja na@shop.example",
      "j'a@shop.example",
      "<j@s.cz>",
      `${"a".repeat(250)}@s.cz`,
    ]) {
      expect(personName(text)).toBeNull();
    }
  });
});

describe("a chosen password", () => {
  it("has at least 12 characters, at most the longest a login takes, typed the same twice", () => {
    expect(passwordProblem("short", "short", 1024)).toMatch(/at least 12/);
    expect(passwordProblem("x".repeat(1025), "x".repeat(1025), 1024)).toMatch(/at most 1024/);
    expect(passwordProblem("correct horse", "correct h0rse", 1024)).toMatch(/differ/);
    expect(passwordProblem("correct horse", "correct horse", 1024)).toBeNull();
  });
});

describe("the partner's people", () => {
  const people = [
    { id: "a", email: "a@s.cz", role: "ADMIN" as const },
    { id: "v", email: "v@s.cz", role: "VIEWER" as const },
  ];

  it("are added once per e-mail, at most MAX_PEOPLE", () => {
    expect(planAddPerson(people, "n@s.cz").ok).toBe(true);
    expect(planAddPerson(people, "v@s.cz")).toMatchObject({ ok: false, problems: [{ message: /already/ }] });
    const many = Array.from({ length: MAX_PEOPLE }, (_, i) => ({ email: `p${i}@s.cz` }));
    expect(planAddPerson(many, "n@s.cz").ok).toBe(false);
  });

  it("keep one ADMIN: the last one is neither demoted nor removed", () => {
    expect(planRoleChange(people, "a", "VIEWER").ok).toBe(false);
    expect(planRoleChange(people, "a", null).ok).toBe(false);
    expect(planRoleChange(people, "a", "ADMIN").ok).toBe(true);
    expect(planRoleChange(people, "v", null).ok).toBe(true);
    const two = [...people, { id: "b", email: "b@s.cz", role: "ADMIN" as const }];
    expect(planRoleChange(two, "a", "FINANCE").ok).toBe(true);
  });
});

describe("the partner's API credentials in the console", () => {
  it("open it during the migration period while no ADMIN has set up their sign-in", () => {
    const before = API_CREDENTIALS_OPEN_CONSOLE_UNTIL - 1;
    expect(apiCredentialsOpenConsole(before, false)).toBe(true);
    expect(apiCredentialsOpenConsole(before, true)).toBe(false);
    expect(apiCredentialsOpenConsole(API_CREDENTIALS_OPEN_CONSOLE_UNTIL, false)).toBe(false);
  });
});
