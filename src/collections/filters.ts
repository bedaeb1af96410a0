/** The kinds of filters a collection offers: how a value is read and which condition a term becomes. */
import { and, eq, gt, gte, inArray, lt, lte, or } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { schema, z } from "../lazy-schema";
import { EQUALITY_OPERATORS, type Filterable, OPERATORS, type Operator, type Parsed } from "./collection";

const comparisons = { lt, lteq: lte, eq, gteq: gte, gt } as const;

/** Compares the column with the value as it is: enums, text, integers. */
export function columnFilter<T>(
  column: SQLiteColumn,
  operators: readonly Operator[],
  parse: (value: string) => Parsed<T>,
): Filterable<T> {
  return {
    operators,
    parse,
    where: (operator, values) =>
      operator === "in" ? inArray(column, values) : comparisons[operator](column, values[0]),
  };
}

export const enumFilter = (column: SQLiteColumn, allowed: readonly string[]) =>
  columnFilter(column, EQUALITY_OPERATORS, (value) =>
    allowed.includes(value) ? { ok: true, value } : { ok: false, message: `must be one of ${allowed.join(", ")}` },
  );

export const integerValue = (value: string): Parsed<number> =>
  /^-?[0-9]{1,15}$/.test(value) ? { ok: true, value: Number(value) } : { ok: false, message: "must be an integer" };

export const textValue =
  (maxLength: number) =>
  (value: string): Parsed<string> =>
    value.length >= 1 && value.length <= maxLength
      ? { ok: true, value }
      : { ok: false, message: `must be 1 to ${maxLength} characters` };

const isoDateTime = schema(() => z.iso.datetime({ offset: true, local: false }));

/**
 * A Unix-millisecond column compared as the partner sees it: date-times are printed without
 * milliseconds, so `createdAt|eq|10:15:00` must match 10:15:00.700, and `gt` must not. Each operator
 * becomes a range on the stored milliseconds, so the index still serves it.
 */
export function instantFilter(column: SQLiteColumn): Filterable<number> {
  const second = 1000;
  // The first stored instant shown at or after t, and the first shown after t.
  const shownFrom = (t: number) => Math.ceil(t / second) * second;
  const shownAfter = (t: number) => Math.floor(t / second) * second + second;
  const equal = (t: number) => and(gte(column, shownFrom(t)), lt(column, shownAfter(t)))!;
  return {
    operators: OPERATORS,
    parse: (value) =>
      isoDateTime().safeParse(value).success
        ? { ok: true, value: Date.parse(value) }
        : { ok: false, message: "must be an ISO 8601 date-time with offset, e.g. 2026-11-22T10:15:00+01:00" },
    where: (operator, [t, ...more]) => {
      switch (operator) {
        case "lt":
          return lt(column, shownFrom(t!));
        case "lteq":
          return lt(column, shownAfter(t!));
        case "gt":
          return gte(column, shownAfter(t!));
        case "gteq":
          return gte(column, shownFrom(t!));
        case "eq":
          return equal(t!);
        case "in":
          return or(...[t!, ...more].map(equal))!;
      }
    },
  };
}
