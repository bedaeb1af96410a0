/**
 * The query compiler's run-time half: what makes the hottest queries cheap by reaching past Drizzle's
 * public API, each measured (bench/tried.md) and checked against Drizzle's own behaviour
 * (test/db/compiler/): the relational row plan (./relational.ts, mapped by src/db/rows.ts) and a
 * condition taken apart into its shape and values (./parameterize.ts). The Drizzle internals they rely
 * on are listed, with the build's, in build/index.ts, which pins the version they were verified at.
 */
export { type Parameterized, parameterize } from "./parameterize";
export { preparedRelational } from "./relational";
