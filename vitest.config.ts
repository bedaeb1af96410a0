import { randomBytes } from "node:crypto";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));

// A fresh pepper per run: no secret is written down, and a test that depended on a fixed one would fail.
const secrets = { AUTH_PEPPER: randomBytes(32).toString("hex") };

function workers(bindings: Record<string, string>) {
  return cloudflareTest({
    wrangler: { configPath: "./wrangler.toml" },
    miniflare: {
      bindings: { ...secrets, REQUIRE_HTTPS: "false", TEST_MIGRATIONS: migrations as never, ...bindings },
    },
  });
}

export default defineConfig({
  test: {
    projects: [
      {
        // The main suite runs with a quota high enough never to interfere with what it tests.
        plugins: [workers({ RATE_LIMIT_REQUESTS: "1000000" })],
        test: {
          name: "api",
          include: ["test/**/*.test.ts"],
          exclude: ["test/rate-limit/**", "test/e2e/**"],
          setupFiles: ["./test/support/apply-migrations.ts"],
        },
      },
      {
        // Rate limits are tested against a small quota of their own.
        plugins: [workers({ RATE_LIMIT_REQUESTS: "20", RATE_LIMIT_WINDOW_SECONDS: "60" })],
        test: {
          name: "rate-limit",
          include: ["test/rate-limit/**/*.test.ts"],
          setupFiles: ["./test/support/apply-migrations.ts"],
        },
      },
    ],
  },
});
