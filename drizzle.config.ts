import { defineConfig } from "drizzle-kit";

// Generates flat SQL files into migrations/, which `wrangler d1 migrations apply` and the tests read.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./migrations",
});
