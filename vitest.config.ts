import { randomBytes } from "node:crypto";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      // The sources, not wrangler.toml's build (dist/worker): the tests need no build step.
      main: "./src/index.ts",
      miniflare: {
        bindings: {
          // A fresh pepper per run: no secret is written down, and no test can depend on a fixed one.
          AUTH_PEPPER: randomBytes(32).toString("hex"),
          REQUIRE_HTTPS: "false",
          // High enough never to interfere; rate-limit tests override the quota per request.
          RATE_LIMIT_REQUESTS: "1000000",
          // The tests run as a sandbox (the e-mail scenarios, advance-time), as `npm start` does; the
          // tests of production's defaults turn it off per request.
          SANDBOX: "true",
          TEST_MIGRATIONS: migrations as never,
          // Property tests run on a fixed seed unless one is asked for (test/support/property-seed.ts).
          PROPERTY_SEED: process.env.PROPERTY_SEED ?? "",
        },
        // Notifications go to a queue nobody consumes: the tests hand each message to the consumer
        // themselves (test/support/notifications.ts), so no background delivery races a test that
        // checks what its own batch did to an event.
        queueProducers: { NOTIFICATIONS: { queueName: "financing-notifications-unconsumed" } },
        // Partner endpoints are the one outside world: nothing leaves the test run. Tests that care
        // about what is sent replace `fetch` with a stub of their own.
        outboundService: () => new Response(null, { status: 204 }),
      },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/e2e/**"],
    setupFiles: ["./test/support/apply-migrations.ts", "./test/support/property-seed.ts"],
    // Request logs are asserted where they matter; elsewhere they only bury the report.
    onConsoleLog: (log) => !log.startsWith('{"level":"info"'),
  },
});
