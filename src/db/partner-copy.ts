/**
 * A partner's rows on a shard, as its move copies them to another (src/db/partner-move.ts): the tables
 * that hold them and how each finds them, the copy made while the partner works, the copy once it is
 * frozen of the rows that changed meanwhile, and their deletion.
 *
 * What changed is what the triggers of migration 0019 named in `partner_move_changes` while the
 * partner's mark was `copying`, on either shard, and the rows of the child tables of what they named. So
 * the frozen copy is as long as the changes, not the partner: each of its steps reads or writes a page of
 * every table at once, by primary key.
 */
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import {
  applications,
  applicationVariableSymbols,
  auditEvents,
  consolePeople,
  documents,
  events,
  idempotencyKeys,
  notificationAttempts,
  orderLines,
  partners,
  payoutEntries,
  payouts,
  refunds,
  settlementEntries,
  shipments,
} from "./schema";
import { isConstraintError } from "./write-batch";

const ITS_APPLICATIONS = "application_id IN (SELECT id FROM applications WHERE partner_id = ?1)";
const ITS_APPLICATION = { parent: applications, by: "application_id" };

interface PartnerTable {
  table: SQLiteTable;
  /** The condition that finds the partner's rows (`?1`: its id). */
  where: string;
  /** Never updated: a trigger of migration 0014 refuses it, so a row copied once is left as it is. */
  appendOnly?: boolean;
  /**
   * A table without the triggers of migration 0019 (it has no `partner_id`, or is written by a trigger
   * of its parent's), whose rows are written only in a batch that writes their parent's row, found by the
   * column `by`: the parent is named as changed, and the move copies its rows of this table with it.
   */
  follows?: { parent: SQLiteTable; by: string };
}

/**
 * Every table holding rows of one partner on its shard, parents before children (the order of copying;
 * deleting goes backwards). test/db/partner-copy.test.ts fails when the schema has a table in neither this
 * list nor NOT_MOVED, or when the triggers of a table do not match its `follows`.
 */
export const PARTNER_TABLES: readonly PartnerTable[] = [
  { table: partners, where: "id = ?1" },
  { table: consolePeople, where: "partner_id = ?1" },
  { table: auditEvents, where: "partner_id = ?1", appendOnly: true },
  { table: applications, where: "partner_id = ?1" },
  // Written by a trigger on the insert of its application alone (migration 0008), never changed.
  { table: applicationVariableSymbols, where: "partner_id = ?1", follows: ITS_APPLICATION },
  { table: orderLines, where: ITS_APPLICATIONS, follows: ITS_APPLICATION },
  { table: documents, where: ITS_APPLICATIONS, follows: ITS_APPLICATION },
  { table: refunds, where: ITS_APPLICATIONS, follows: ITS_APPLICATION },
  { table: shipments, where: "partner_id = ?1" },
  { table: settlementEntries, where: "partner_id = ?1" },
  { table: payouts, where: "partner_id = ?1" },
  {
    table: payoutEntries,
    where: "payout_id IN (SELECT id FROM payouts WHERE partner_id = ?1)",
    follows: { parent: payouts, by: "payout_id" },
  },
  { table: events, where: "partner_id = ?1" },
  {
    table: notificationAttempts,
    where: "event_id IN (SELECT id FROM events WHERE partner_id = ?1)",
    follows: { parent: events, by: "event_id" },
  },
  { table: idempotencyKeys, where: "partner_id = ?1" },
];

/** The tables that hold nothing of one partner's on its shard, and why they are not moved. */
export const NOT_MOVED: Record<string, string> = {
  access_tokens: "the directory's: a partner's tokens stay where logging in finds them",
  document_uploads: "a file put to R2 whose row is not written yet: no partner; the old shard's cron collects it",
  endpoint_circuits: "no longer written (the mailboxes keep the circuits)",
  write_guard: "the guard's one row, the service's own",
  partner_moves: "the moves' own marks",
  partner_move_changes: "the moves' own record of what changed while they copied",
  partner_move_requests: "the directory's: the moves operators asked for",
};

/** D1 binds at most 100 parameters per statement. */
const MAX_PARAMS = 100;
/** Rows (or keys) read per page, and statements per write batch: bounded work per call whatever the partner's size. */
const PAGE_ROWS = 500;
const BATCH_STATEMENTS = 50;

interface Shape {
  name: string;
  columns: string[];
  key: string[];
  where: string;
  appendOnly: boolean;
  follows?: { parent: string; by: string };
}

const shapes: Shape[] = PARTNER_TABLES.map(({ table, where, appendOnly, follows }) => {
  const config = getTableConfig(table);
  const columns = config.columns.map((c) => c.name);
  const key = config.columns.filter((c) => c.primary).map((c) => c.name);
  return {
    name: config.name,
    columns,
    key: key.length > 0 ? key : config.primaryKeys[0]!.columns.map((c) => c.name),
    where,
    appendOnly: appendOnly ?? false,
    follows: follows && { parent: getTableConfig(follows.parent).name, by: follows.by },
  };
});

type Row = Record<string, unknown>;

/** A row's primary key as the triggers write it: the JSON array of its values. */
type Key = string;
const keyOf = (shape: Shape, row: Row): Key => JSON.stringify(shape.key.map((c) => row[c]));

/** A column's name as SQL takes it whatever it is (`key`, `type`, `position` are words of SQLite's too). */
const quoted = (column: string) => `"${column}"`;

const pagesOf = <T>(items: readonly T[]) =>
  Array.from({ length: Math.ceil(items.length / PAGE_ROWS) }, (_, n) =>
    items.slice(n * PAGE_ROWS, (n + 1) * PAGE_ROWS),
  );

/**
 * The new shard as the move writes it. Each batch sets the partner's mark there to `landing` for its own
 * writes, then back to `state`: what else writes the partner's rows there meanwhile (that shard's cron, on
 * the rows copied so far) is named while the move copies and refused once it is frozen, as on the old shard.
 */
export class Target {
  state: "copying" | "frozen" = "copying";
  constructor(
    readonly db: D1Database,
    readonly partnerId: string,
  ) {}

  async batch(statements: D1PreparedStatement[]): Promise<D1Result[]> {
    const mark = "UPDATE partner_moves SET state = ?2 WHERE partner_id = ?1";
    const results = await this.db.batch([
      this.db.prepare(mark).bind(this.partnerId, "landing"),
      ...statements,
      this.db.prepare(mark).bind(this.partnerId, this.state),
    ]);
    return results.slice(1, -1);
  }
}

/** The partner's rows of a table, a page at a time in rowid order, with their rowid as `__rowid`. */
async function* rowsOf(db: D1Database, shape: Shape, partnerId: string) {
  for (let after = -1; ; ) {
    const { results } = await db
      .prepare(
        `SELECT rowid AS __rowid, ${shape.columns.map(quoted).join(", ")} FROM ${shape.name} WHERE (${shape.where}) AND rowid > ?2 ORDER BY rowid LIMIT ?3`,
      )
      .bind(partnerId, after, PAGE_ROWS)
      .all<Row>();
    if (results.length > 0) yield results;
    if (results.length < PAGE_ROWS) return;
    after = results.at(-1)!.__rowid as number;
  }
}

/** How SQLite names a row whose parent is missing. */
const FOREIGN_KEY = "FOREIGN KEY constraint failed";

/**
 * Upserts rows by primary key, a statement of at most MAX_PARAMS values per chunk of rows: a row copied
 * before is brought up to date in place (no delete, so no foreign key sees its parent go). The partner's
 * `shard` is the directory's to change (the switch): a copy never touches it on the target, which for
 * shard 0 is the directory itself.
 */
function upserts(db: D1Database, shape: Shape, rows: Row[]): { statement: D1PreparedStatement; rows: Row[] }[] {
  const perStatement = Math.floor(MAX_PARAMS / shape.columns.length);
  const kept = shape.columns.filter((c) => !shape.key.includes(c) && !(shape.name === "partners" && c === "shard"));
  const onConflict =
    shape.appendOnly || kept.length === 0
      ? "DO NOTHING"
      : `DO UPDATE SET ${kept.map((c) => `${quoted(c)} = excluded.${quoted(c)}`).join(", ")}`;
  const tuple = `(${shape.columns.map(() => "?").join(", ")})`;
  const chunks: { statement: D1PreparedStatement; rows: Row[] }[] = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const statement = db
      .prepare(
        `INSERT INTO ${shape.name} (${shape.columns.map(quoted).join(", ")}) VALUES ${chunk.map(() => tuple).join(", ")}
         ON CONFLICT (${shape.key.map(quoted).join(", ")}) ${onConflict}`,
      )
      .bind(...chunk.flatMap((row) => shape.columns.map((c) => row[c] ?? null)));
    chunks.push({ statement, rows: chunk });
  }
  return chunks;
}

/**
 * Writes rows read while the partner works to the target, BATCH_STATEMENTS statements a batch. A batch
 * refused by a foreign key is written again a row at a time, the rows still refused left out: the copy
 * reads table after table, so it can meet a line, a refund or an event whose parent came after that
 * table's pages were read. Such a row was written after the mark, so it (or its parent, which stands for
 * it) is named in the changes, and the frozen copy brings it; the rows beside it must land now.
 */
async function upsertRows(target: Target, shape: Shape, rows: Row[]) {
  const chunks = upserts(target.db, shape, rows);
  for (let i = 0; i < chunks.length; i += BATCH_STATEMENTS) {
    const batch = chunks.slice(i, i + BATCH_STATEMENTS);
    try {
      await target.batch(batch.map((c) => c.statement));
    } catch (error) {
      if (!isConstraintError(error, FOREIGN_KEY)) throw error;
      for (const row of batch.flatMap((c) => c.rows)) {
        await target.batch(upserts(target.db, shape, [row]).map((c) => c.statement)).catch((refused: unknown) => {
          if (!isConstraintError(refused, FOREIGN_KEY)) throw refused;
        });
      }
    }
  }
}

/** Copies every row of the partner from `source` to `target` while it works, table by table; answers the rows read. */
export async function copyRows(source: D1Database, target: Target, partnerId: string): Promise<number> {
  let copied = 0;
  for (const shape of shapes) {
    for await (const rows of rowsOf(source, shape, partnerId)) {
      await upsertRows(target, shape, rows);
      copied += rows.length;
    }
  }
  return copied;
}

/**
 * The keys a shard's triggers named for the partner since its mark was set, by table: every table's in
 * one read while they fit a page, which is what a move's few changes need.
 */
async function changedKeys(db: D1Database, partnerId: string): Promise<Map<string, Key[]>> {
  const named = new Map<string, Key[]>();
  for (let after = ["", ""]; ; ) {
    const { results } = await db
      .prepare(
        `SELECT table_name AS name, row_key AS key FROM partner_move_changes
         WHERE partner_id = ?1 AND (table_name, row_key) > (?2, ?3) ORDER BY table_name, row_key LIMIT ?4`,
      )
      .bind(partnerId, ...after, PAGE_ROWS)
      .all<{ name: string; key: string }>();
    for (const { name, key } of results) {
      const keys = named.get(name) ?? [];
      // As JSON.stringify writes it, to compare with the keys of rows read.
      keys.push(JSON.stringify(JSON.parse(key)));
      named.set(name, keys);
    }
    if (results.length < PAGE_ROWS) return named;
    const last = results.at(-1)!;
    after = [last.name, last.key];
  }
}

/** Joins a table (`t`) to a page of keys bound as one JSON array (`?1`): a primary-key lookup per key. */
const byKeys = (shape: Shape) =>
  `json_each(?1) k JOIN ${shape.name} t ON ${shape.key.map((c, i) => `t.${quoted(c)} = json_extract(k.value, '$[${i}]')`).join(" AND ")}`;
const listed = (keys: readonly Key[]) => `[${keys.join(",")}]`;

/** Runs statements that write on the target, BATCH_STATEMENTS a batch; answers the rows they changed. */
async function writeAll(target: Target, statements: D1PreparedStatement[]): Promise<number> {
  let changes = 0;
  for (let i = 0; i < statements.length; i += BATCH_STATEMENTS) {
    for (const { meta } of await target.batch(statements.slice(i, i + BATCH_STATEMENTS))) changes += meta.changes;
  }
  return changes;
}

/** Runs statements that read, BATCH_STATEMENTS a batch (one round trip each); answers each one's rows. */
async function readAll(db: D1Database, statements: D1PreparedStatement[]): Promise<Row[][]> {
  const rows: Row[][] = [];
  for (let i = 0; i < statements.length; i += BATCH_STATEMENTS) {
    for (const { results } of await db.batch<Row>(statements.slice(i, i + BATCH_STATEMENTS))) rows.push(results);
  }
  return rows;
}

/**
 * The frozen copy: the rows named by either shard's triggers since the move began, and those of their
 * child tables, brought to what the source holds: upserted where it has them (parents first), deleted on
 * the target where it has not (children first). Each step reads or writes every table's pages at once, so
 * that a few changes cost a few round trips. Answers the rows written and, of them, deleted.
 */
export async function copyChanges(source: D1Database, target: Target, partnerId: string) {
  const shards = [source, target.db];
  const named = await Promise.all(shards.map((db) => changedKeys(db, partnerId)));
  const changed = new Map<string, Set<Key>>(
    shapes.map((shape) => [shape.name, new Set(named.flatMap((byTable) => byTable.get(shape.name) ?? []))]),
  );

  // The children of the parents named (every parent is a table of the triggers'), on either shard.
  const children = shapes.flatMap((shape) =>
    shape.follows
      ? pagesOf([...changed.get(shape.follows.parent)!]).map((parents) => ({ shape, by: shape.follows!.by, parents }))
      : [],
  );
  const childKeys = await Promise.all(
    shards.map((db) =>
      readAll(
        db,
        children.map(({ shape, by, parents }) =>
          db
            .prepare(
              `SELECT ${shape.key.map(quoted).join(", ")} FROM ${shape.name}
               WHERE ${quoted(by)} IN (SELECT json_extract(value, '$[0]') FROM json_each(?1))`,
            )
            .bind(listed(parents)),
        ),
      ),
    ),
  );
  for (const rowsOfShard of childKeys) {
    rowsOfShard.forEach((rows, n) => {
      const { shape } = children[n]!;
      for (const row of rows) changed.get(shape.name)!.add(keyOf(shape, row));
    });
  }

  // What the source holds of them, a page of each table per read, and what the target gets: upserts
  // parents first, then deletes of what the source no longer has, children first.
  const pages = shapes.flatMap((shape) => pagesOf([...changed.get(shape.name)!]).map((keys) => ({ shape, keys })));
  let upserted = 0;
  const gone: { shape: Shape; keys: Key[] }[] = [];
  for (let i = 0; i < pages.length; i += shapes.length) {
    const group = pages.slice(i, i + shapes.length);
    const held = await readAll(
      source,
      group.map(({ shape, keys }) =>
        source
          .prepare(`SELECT ${shape.columns.map((c) => `t.${quoted(c)}`).join(", ")} FROM ${byKeys(shape)}`)
          .bind(listed(keys)),
      ),
    );
    await writeAll(
      target,
      group.flatMap(({ shape }, n) => upserts(target.db, shape, held[n]!).map((chunk) => chunk.statement)),
    );
    group.forEach(({ shape, keys }, n) => {
      const found = new Set(held[n]!.map((row) => keyOf(shape, row)));
      const missing = keys.filter((key) => !found.has(key));
      if (missing.length > 0) gone.push({ shape, keys: missing });
      upserted += held[n]!.length;
    });
  }
  const deleted = await writeAll(
    target,
    gone
      .reverse()
      .map(({ shape, keys }) =>
        target.db
          .prepare(`DELETE FROM ${shape.name} WHERE rowid IN (SELECT t.rowid FROM ${byKeys(shape)})`)
          .bind(listed(keys)),
      ),
  );
  return { rows: upserted + deleted, deleted };
}

/**
 * Deletes every row of the partner (children first), a page of rowids per statement, each statement run by
 * `run`, which answers the rows it deleted.
 */
export async function deleteRows(
  run: (statement: string, partnerId: string, limit: number) => Promise<number>,
  partnerId: string,
  keepPartnerRow: boolean,
): Promise<number> {
  let deleted = 0;
  for (const shape of [...shapes].reverse()) {
    if (keepPartnerRow && shape.name === "partners") continue;
    const statement = `DELETE FROM ${shape.name} WHERE rowid IN (SELECT rowid FROM ${shape.name} WHERE ${shape.where} LIMIT ?2)`;
    for (;;) {
      const changes = await run(statement, partnerId, PAGE_ROWS);
      deleted += changes;
      if (changes < PAGE_ROWS) break;
    }
  }
  return deleted;
}
