-- The API's variableSymbol filter now reads the lookup table's key (src/collections/applications.ts):
-- nothing reads this index of the comma-joined lists any more, and every insert paid for it.
DROP INDEX `applications_partner_vs_idx`;
