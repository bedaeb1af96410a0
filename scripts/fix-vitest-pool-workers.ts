/**
 * Applies upstream's fix for a bug of @cloudflare/vitest-pool-workers 0.23.0 to the installed copy;
 * vitest.config.ts calls it before every run, so a clean `npm ci` needs nothing more.
 *
 * The bug (cloudflare/workers-sdk#15092): the wrapper class behind `SELF` and every Durable Object
 * wraps its prototype in one more Proxy each time it is constructed, that is on every `SELF.fetch` and
 * every new object. Each request then walks all the earlier layers, so a test file's requests get
 * slower one by one (its cost grows with the square of its requests), and a runtime that lives longer
 * than one file overflows its stack. The fix (workers-sdk#15106, "install the prototype proxy once")
 * shipped only in the package's successor, @cloudflare/vitest-plugin, whose wrangler needs Node 22.
 *
 * It changes nothing but that function, and refuses to guess: when the installed text is neither the
 * one fixed here nor already fixed (the package was upgraded), it throws, so whoever upgraded checks
 * whether the bug is gone and deletes this file.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BROKEN = `	function Class(...args) {
		Class.prototype = new Proxy(Class.prototype, { get(target, key, receiver) {
			const value = Reflect.get(target, key, receiver);
			if (value !== void 0) return value;
			if (typeof key === "symbol" || IGNORED_KEYS.includes(key)) return;
			return getUnknownPrototypeKey.call(receiver, key);
		} });
		return Reflect.construct(superClass, args, Class);
	}`;

const FIXED = `	let proxyInstalled = false;
	function Class(...args) {
		if (!proxyInstalled) {
			Class.prototype = new Proxy(Class.prototype, { get(target, key, receiver) {
				const value = Reflect.get(target, key, receiver);
				if (value !== void 0) return value;
				if (typeof key === "symbol" || IGNORED_KEYS.includes(key)) return;
				return getUnknownPrototypeKey.call(receiver, key);
			} });
			proxyInstalled = true;
		}
		return Reflect.construct(superClass, args, Class);
	}`;

export function fixVitestPoolWorkers(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const file = path.join(
    root,
    "node_modules/@cloudflare/vitest-pool-workers/dist/worker/lib/cloudflare/test-internal.mjs",
  );
  const text = readFileSync(file, "utf8");
  if (text.includes(FIXED)) return;
  if (text.split(BROKEN).length !== 2) {
    throw new Error(
      `${file} is not the text scripts/fix-vitest-pool-workers.ts fixes: check whether ` +
        "cloudflare/workers-sdk#15092 is fixed in this version, then remove the fix",
    );
  }
  writeFileSync(file, text.replace(BROKEN, FIXED));
}
