import fc from "fast-check";
import { inject } from "vitest";

/**
 * Every property test runs on one fixed seed, so CI is repeatable and a failure reproduces: fast-check
 * prints the seed and path of a counterexample. `PROPERTY_SEED=<n> npm test` replays a seed,
 * `PROPERTY_SEED=random npm test` explores new ones locally (see vitest.config.ts). Read through
 * vitest's `inject`, so the same setup serves the Node and the workerd tests.
 */
const FIXED_SEED = 20261123;
const requested = inject("propertySeed");
const seed =
  requested === undefined || requested === ""
    ? FIXED_SEED
    : requested === "random"
      ? Math.floor(Math.random() * 2 ** 31)
      : Number(requested);
if (!Number.isSafeInteger(seed)) throw new Error(`PROPERTY_SEED must be an integer or "random", not ${requested}`);
if (seed !== FIXED_SEED) console.warn(`property tests run with seed ${seed}`);
fc.configureGlobal({ seed });
