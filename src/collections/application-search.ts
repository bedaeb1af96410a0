/**
 * The console's one search box over the applications list: the text is what a customer or a colleague
 * reads out (an order number, an e-mail, a variable symbol, an application id), so one term matches any
 * of them. The partner API keeps its filters as they are; this collection is the console's.
 */
import { getTableColumns, type SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { applications, applicationVariableSymbols } from "../db/schema";
import { applicationsCollection } from "./applications";
import type { Filterable } from "./collection";

/** As the API's filters read them: e-mails stored lowercased, variable symbols 1 to 10 digits, ULIDs. */
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const VARIABLE_SYMBOL = /^[0-9]{1,10}$/;
const APPLICATION_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

/**
 * A table's columns by bare name: the list's query is read through Drizzle's relational builder, which
 * qualifies every column with the outer list's alias, so a subquery names its own columns unqualified.
 */
function names<T extends SQLiteTable>(table: T) {
  return Object.fromEntries(
    Object.entries(getTableColumns(table)).map(([key, column]) => [key, sql.identifier(column.name)]),
  ) as unknown as Record<keyof T["_"]["columns"], SQL>;
}

/**
 * `search|eq|<text>`: the ids of the partner's applications whose order number is the text, and of
 * those the text can be otherwise (e-mail, variable symbol, id). Each alternative is its own exact
 * lookup in an index, joined by UNION ALL: an OR of them beside the list's sort would let SQLite walk
 * the sort's index and test every application of the partner instead.
 */
export function searchFilter(partnerId: string): Filterable<string> {
  const { id, partnerId: partner, orderNumber, customerEmail } = names(applications);
  const ofPartner = (condition: SQL) =>
    sql`SELECT ${id} FROM ${applications} WHERE ${partner} = ${partnerId} AND ${condition}`;
  return {
    operators: ["eq"],
    parse: (value) => {
      const text = value.trim();
      return text.length >= 1 && text.length <= 254
        ? { ok: true, value: text }
        : { ok: false, message: "must be 1 to 254 characters" };
    },
    where: (_operator, [text]) => {
      const found = [ofPartner(sql`${orderNumber} = ${text}`)];
      if (EMAIL.test(text!)) found.push(ofPartner(sql`${customerEmail} = ${text!.toLowerCase()}`));
      if (VARIABLE_SYMBOL.test(text!)) {
        const { partnerId: owner, applicationId, variableSymbol } = names(applicationVariableSymbols);
        found.push(
          sql`SELECT ${applicationId} FROM ${applicationVariableSymbols} WHERE ${owner} = ${partnerId} AND ${variableSymbol} = ${text}`,
        );
      }
      if (APPLICATION_ID.test(text!)) found.push(ofPartner(sql`${id} = ${text!.toUpperCase()}`));
      return sql`${applications.id} IN (${sql.join(found, sql` UNION ALL `)})`;
    },
  };
}

/**
 * The list's scope while the search box is used. Without statistics SQLite takes a partner for a
 * handful of rows, so with the plain scope it walks the sort's index over all of the partner's
 * applications and tests each against the found ids; the unary `+` leaves it the ids to look up (each
 * lookup above already keeps to the partner), and the few found are sorted.
 */
export const searchScope = (partnerId: string) => sql`+${applications.partnerId} = ${partnerId}`;

/** The applications list with the search box, for one partner (the search looks only at its rows). */
export const applicationSearchCollection = (partnerId: string) => ({
  ...applicationsCollection,
  filterable: { ...applicationsCollection.filterable, search: searchFilter(partnerId) },
});
