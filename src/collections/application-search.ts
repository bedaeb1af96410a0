/**
 * The console's one search box over the applications list: the text is what a customer or a colleague
 * reads out (an order number, an e-mail, a variable symbol, an application id), so one term matches any
 * of them. The partner API keeps its filters as they are; this collection is the console's.
 */
import { type SQL, sql } from "drizzle-orm";
import { applications } from "../db/schema";
import { applicationsOf, names, variableSymbolValue, withVariableSymbol } from "./applications";
import type { Filterable } from "./collection";

/** As the API's filters read them: e-mails stored lowercased, ULIDs (variable symbols: `variableSymbolValue`). */
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const APPLICATION_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

/**
 * `search|eq|<text>`: the ids of the partner's applications whose order number is the text, and of
 * those the text can be otherwise (e-mail, variable symbol, id). Each alternative is its own exact
 * lookup in an index, joined by UNION ALL: an OR of them beside the list's sort would let SQLite walk
 * the sort's index and test every application of the partner instead.
 */
function searchFilter(partnerId: string): Filterable<string> {
  const { id, partnerId: partner, orderNumber, customerEmail, archiveKey } = names(applications);
  // Live applications only, as the list: and so through the list's partial indexes (schema).
  const ofPartner = (condition: SQL) =>
    sql`SELECT ${id} FROM ${applications} WHERE ${partner} = ${partnerId} AND ${archiveKey} IS NULL AND ${condition}`;
  return {
    operators: ["eq"],
    lookup: true,
    parse: (value) => {
      const text = value.trim();
      return text.length >= 1 && text.length <= 254
        ? { ok: true, value: text }
        : { ok: false, message: "must be 1 to 254 characters" };
    },
    where: (_operator, [text]) => {
      const found = [ofPartner(sql`${orderNumber} = ${text}`)];
      if (EMAIL.test(text!)) found.push(ofPartner(sql`${customerEmail} = ${text!.toLowerCase()}`));
      if (variableSymbolValue(text!).ok) found.push(withVariableSymbol(partnerId, [text!]));
      if (APPLICATION_ID.test(text!)) found.push(ofPartner(sql`${id} = ${text!.toUpperCase()}`));
      return sql`${applications.id} IN (${sql.join(found, sql` UNION ALL `)})`;
    },
  };
}

/** The applications list with the search box, for one partner (the search looks only at its rows). */
export function applicationSearchCollection(partnerId: string) {
  const collection = applicationsOf(partnerId);
  return { ...collection, filterable: { ...collection.filterable, search: searchFilter(partnerId) } };
}
