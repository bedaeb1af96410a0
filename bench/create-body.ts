/**
 * The create request the benchmark sends: the tests' own (every field of the specification, consistent
 * in every amount), so the benchmark measures what the tests check. bench/floors/do-create.js stores
 * the rows this request becomes.
 */
import { applicationRequest } from "../test/support/application-request";

export const createBody = (orderNumber: string): string => JSON.stringify(applicationRequest({ orderNumber }));
