/**
 * The console's one search box over the applications list: the text is what a customer or a colleague
 * reads out (an order number, an e-mail, a variable symbol, an application id), so one term matches any
 * of them. The partner API keeps its filters as they are; this collection is the console's.
 */
import { eq, or, type SQL } from "drizzle-orm";
import { applications } from "../db/schema";
import { applicationsCollection } from "./applications";
import type { Filterable } from "./collection";

/** As the API's filters read them: e-mails stored lowercased, variable symbols 1 to 10 digits, ULIDs. */
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const VARIABLE_SYMBOL = /^[0-9]{1,10}$/;
const APPLICATION_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

/**
 * `search|eq|<text>`: the order number as it is, and whatever else the text can be. Each alternative
 * is one of the API's own conditions (the variable symbol's is its list-member test).
 */
export const searchFilter: Filterable<string> = {
  operators: ["eq"],
  parse: (value) => {
    const text = value.trim();
    return text.length >= 1 && text.length <= 254
      ? { ok: true, value: text }
      : { ok: false, message: "must be 1 to 254 characters" };
  },
  where: (_operator, [text]) => {
    const { orderNumber, customerEmail, variableSymbol } = applicationsCollection.filterable;
    const alternatives: SQL[] = [orderNumber.where("eq", [text!])];
    if (EMAIL.test(text!)) alternatives.push(customerEmail.where("eq", [text!.toLowerCase()]));
    if (VARIABLE_SYMBOL.test(text!)) alternatives.push(variableSymbol.where("eq", [text!]));
    if (APPLICATION_ID.test(text!)) alternatives.push(eq(applications.id, text!.toUpperCase()));
    return or(...alternatives)!;
  },
};

export const applicationSearchCollection = {
  ...applicationsCollection,
  filterable: { ...applicationsCollection.filterable, search: searchFilter },
};
