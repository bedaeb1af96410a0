/**
 * Runs after `npm install` / `npm ci` (the `prepare` script): copies the Scalar API reference's browser
 * bundle into public/, which the Worker serves as static assets (wrangler.toml [assets]), so /docs
 * loads nothing from a CDN: it works offline in local development and under a strict CSP.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";

const bundle = createRequire(import.meta.url).resolve("@scalar/api-reference/browser/standalone.js");
mkdirSync("public/docs", { recursive: true });
copyFileSync(bundle, "public/docs/scalar-api-reference.js");
console.log("copied the Scalar API reference bundle to public/docs/");
