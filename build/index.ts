/**
 * The build wing: everything that runs at build time, in Node, and never in the Worker (biome's
 * noRestrictedImports refuses an import of build/ from src/, and ./worker.ts refuses a bundle holding
 * one of its modules). It writes generated/ from the sources (./artefacts.ts, in one order for
 * `npm run openapi`, the Worker's build and the tests): the statements of the cold reads
 * (./statements.ts), the request validators compiled from the zod schemas (./request-compiler.ts) and
 * the OpenAPI document (./document.ts); and it builds the Worker (./worker.ts).
 *
 * What makes the Worker's cold path cheap reaches past three libraries' public APIs. Every internal it
 * relies on is listed here, verified at the versions of VERIFIED; test/build/index.test.ts fails when an
 * installed version differs, and this is the list to re-verify then (each has tests of its own beside
 * it: test/build/, test/db/compiler/, test/http/openapi.compiled.test.ts).
 *
 * zod (./request-compiler.ts, at build time only):
 * - every schema's `_zod.def`: its `type` and, per type, `shape` and `checks` (object), `innerType`
 *   (optional, nullable, default), `defaultValue` (default), `in` and `out` (pipe, and a transform's
 *   `transform`), `options` (union), `element` and `checks` (array), `entries` (enum), `values`
 *   (literal), `coerce` and `checks` (number), `checks`, `format`, `pattern`, `check`, `abort`,
 *   `offset`, `local`, `precision`, `protocol`, `hostname` and `normalize` (string and its formats);
 * - each check's `_zod.def`: `check` (`min_length`, `max_length`, `length_equals`, `string_format`,
 *   `custom`, `overwrite`, `number_format`, `greater_than`, `less_than`) with `minimum`, `maximum`,
 *   `length`, `format`, `pattern`, `fn`, `tx`, `value`, `inclusive`;
 * - `_zod.optin` and `_zod.optout` (whether a schema takes and answers undefined), and
 *   `z.regexes.httpProtocol`.
 * @hono/zod-openapi and @hono/zod-validator (src/api/route.ts, at run time, for a compiled route):
 * - OpenAPIHono validates query, path, headers, then the JSON body, and its `matchesMediaType` gate
 *   answers 415 to a body whose Content-Type is not JSON, or that has none (`jsonMediaType` replicates
 *   both); @hono/zod-validator gives zod the headers under the schema's spelling of their names and
 *   passes the raw input to the hook as `data`.
 * drizzle-orm (./statements.ts at build time; src/db/compiler/ at run time):
 * - a relational query's `_toSQL()` (`query.selection` items: `tsKey`, `isJson`, `field`,
 *   `relationTableTsKey`, `selection`; `builtQuery`: `sql`, `params` of `Placeholder`s and findFirst's
 *   limit as a number), its `schema`, `tableConfig.relations` and `mode`, `prepare().values(placeholders)`,
 *   `is(relation, One)`, and which decoder a field holds: `SQLiteTextJson` parses, `SQLiteBoolean` is
 *   1 = true, and a Column that keeps `Column.prototype.mapFromDriverValue` or an SQL (an aliased
 *   field's `sql`) whose `decoder` is `noopDecoder` decode nothing;
 * - a select's `toSQL()` and `config.fields` (its flat selection, in the order Drizzle selects it);
 * - a column's `columnType` (`SQLiteTextJson` encodes as JSON, `SQLiteBoolean` as 1 or 0, the plain
 *   text, integer and real columns as they are), `name`, `default`, `defaultFn` and `onUpdateFn`;
 * - `SQL.queryChunks` and `shouldInlineParams`, `StringChunk.value`, a Column's `table` and `name`,
 *   `Name.value`, `Placeholder.name`, `Param.value` and `Param.encoder`, and that Drizzle renders an
 *   array chunk as a parenthesised list (src/db/compiler/parameterize.ts).
 */
export const VERIFIED = {
  zod: "4.4.3",
  "@hono/zod-openapi": "1.6.3",
  "@hono/zod-validator": "0.9.1",
  "drizzle-orm": "0.45.4",
} as const;
