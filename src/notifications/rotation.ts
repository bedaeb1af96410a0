/**
 * Rotating the partner's notification signing secret (the rules: src/domain/signing-secrets.ts), for the
 * API and the console alike.
 */
import { CONCURRENT_MODIFICATION } from "../applications/change-application";
import { newSigningSecret, sealSecret } from "../auth/crypto";
import { now } from "../clock";
import type { Database } from "../db/client";
import { signingSecretsOf, storeSigningSecrets } from "../db/partners";
import type { Problem } from "../domain/result";
import { planRotation } from "../domain/signing-secrets";

export type Rotation =
  /** The new secret, shown only to whoever asked for it, only now; until `previousUntil` the one it replaced signs too. */
  | { outcome: "rotated"; secret: string; previousUntil: number | undefined }
  | { outcome: "refused"; problems: Problem[] };

/** A few rounds at most: only another rotation of the same partner at the same moment makes one lose. */
const ROUNDS = 5;

export async function rotateSigningSecret(
  db: Database,
  partnerId: string,
  request: { pepper: string; overlapMs: number; force: boolean },
): Promise<Rotation> {
  const secret = newSigningSecret();
  const sealed = await sealSecret(secret, request.pepper, "signing-secret");
  for (let round = 1; round <= ROUNDS; round++) {
    const at = now();
    const before = await signingSecretsOf(db, partnerId);
    if (!before) break;
    const after = planRotation(before, { sealed, overlapMs: request.overlapMs, force: request.force }, at);
    if (!after.ok) return { outcome: "refused", problems: after.problems };
    if (await storeSigningSecrets(db, partnerId, before, after.value)) {
      return { outcome: "rotated", secret, previousUntil: after.value.previous?.expiresAt };
    }
  }
  return { outcome: "refused", problems: [CONCURRENT_MODIFICATION] };
}
