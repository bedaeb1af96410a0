/**
 * A partner's wire profile (CONTRACT 6c): the shapes its answers, errors and notifications take, and the
 * request shapes it may send. DEFAULT is this API's own; SKIP_PAY is Skip Pay's published document
 * (src/wire/skip-pay.ts). An operator sets it (`npm run partner:terms -- --wire-profile`). Pure: no HTTP, no SQL.
 */
export const WIRE_PROFILES = ["DEFAULT", "SKIP_PAY"] as const;
export type WireProfile = (typeof WIRE_PROFILES)[number];

export const isWireProfile = (value: unknown): value is WireProfile =>
  (WIRE_PROFILES as readonly unknown[]).includes(value);
