/**
 * The query compiler: what makes the hottest queries cheap by reaching past Drizzle's public API. Each
 * was measured (bench/tried.md) and is checked against Drizzle's own behaviour (test/db/compiler/).
 * Everything here relies on these internals of drizzle-orm, verified at VERIFIED_DRIZZLE_ORM; a test
 * (test/db/compiler/index.test.ts) fails when the installed version differs, and this is the list to
 * re-verify then:
 *
 * - relational.ts (the row plan of `db.query.<table>.findFirst/findMany`, mapped by src/db/rows.ts):
 *   the relational query's `_toSQL().query.selection` items (`tsKey`, `isJson`, `field`,
 *   `relationTableTsKey`, `selection`), its `schema`, `tableConfig.relations` and `mode`, its
 *   `prepare().values(placeholders)`, `is(relation, One)`, and which decoder a field holds:
 *   `SQLiteTextJson` parses, `SQLiteBoolean` is 1 = true, and a Column that keeps
 *   `Column.prototype.mapFromDriverValue` or an SQL (an aliased field's `sql`) whose `decoder` is
 *   `noopDecoder` decode nothing.
 * - writes.ts (what inserts and updates bind, read at build time for src/db/writes.ts):
 *   a column's `columnType` (`SQLiteTextJson` encodes as JSON, `SQLiteBoolean` as 1 or 0, the plain
 *   text, integer and real columns as they are), `name`, `default`, `defaultFn` and `onUpdateFn`.
 * - statements.ts (statements built ahead of time, run without Drizzle by src/db/precompiled.ts):
 *   a relational query's `_toSQL().builtQuery` (`sql`, `params`: `Placeholder`s and findFirst's limit as a
 *   number), and a select's `toSQL()` and `config.fields` (the flat selection, in the order Drizzle selects
 *   it).
 * - parameterize.ts (a condition taken apart into its shape and values):
 *   `SQL.queryChunks` and `shouldInlineParams`, `StringChunk.value`, a Column's `table` and `name`,
 *   `Name.value`, `Placeholder.name`, `Param.value` and `Param.encoder`, and that Drizzle renders an
 *   array chunk as a parenthesised list.
 */
export const VERIFIED_DRIZZLE_ORM = "0.45.4";

export { type Parameterized, parameterize } from "./parameterize";
export { preparedRelational } from "./relational";
export { relationalStatement, selectStatement } from "./statements";
export { type WriteColumn, type WriteTable, writeTable } from "./writes";
