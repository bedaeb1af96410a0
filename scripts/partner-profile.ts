/**
 * `npm run partner:profile -- --username NAME [--wire-profile DEFAULT|SKIP_PAY] [--remote]`: the shapes a
 * partner's answers, errors and notifications take (CONTRACT 6c, src/wire).
 * - without an option: prints the partner's profile;
 * - `--wire-profile SKIP_PAY`: Skip Pay's published document, for a partner whose integration was built
 *   for Skip Pay; `--wire-profile DEFAULT`: this API's own shapes.
 * A token keeps the profile of its login: the change applies from the partner's next login (a token in
 * use keeps its profile until it expires, at most 2 hours). Notifications follow the change at once.
 * Prints one JSON line: `{"username","wireProfile"}`.
 */
import { parseArgs } from "node:util";
import { isWireProfile, WIRE_PROFILES } from "../src/domain/wire-profile";
import { checkUsername, wrangler } from "./lib";

const USAGE = `usage: npm run partner:profile -- --username NAME [--wire-profile ${WIRE_PROFILES.join("|")}] [--remote]`;

const { values } = parseArgs({
  options: {
    username: { type: "string" },
    "wire-profile": { type: "string" },
    remote: { type: "boolean", default: false },
  },
});

try {
  const profile = values["wire-profile"];
  if (!values.username) throw new Error(USAGE);
  if (profile !== undefined && !isWireProfile(profile))
    throw new Error(`--wire-profile: not a profile: ${profile}\n${USAGE}`);
  checkUsername(values.username);
  // Every inlined value is ours: a checked user name and a profile of the list.
  const where = `WHERE username = '${values.username}'`;
  const sql =
    profile === undefined
      ? `SELECT wire_profile AS wireProfile FROM partners ${where};`
      : `UPDATE partners SET wire_profile = '${profile}' ${where} RETURNING wire_profile AS wireProfile;`;
  const out = wrangler(["d1", "execute", "DB", values.remote ? "--remote" : "--local", "--json", "--command", sql], {
    quiet: true,
  });
  const [row] = (JSON.parse(out) as { results: { wireProfile: string }[] }[])[0]?.results ?? [];
  if (!row) throw new Error(`no partner "${values.username}"`);
  console.log(JSON.stringify({ username: values.username, ...row }));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
