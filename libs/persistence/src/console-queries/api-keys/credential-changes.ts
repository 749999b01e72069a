/**
 * A count of the changes this process wrote that can turn a working API key into a refused one
 * (a revocation, an owner disabled, demoted or deleted). The console's key check keeps a working
 * key's row for a moment (AuthService); a change written here makes it read every key again at
 * once, so a revocation through this process is never outlived by the check. Another console
 * process's writes reach it when its kept rows expire (API_KEY_CHECK_KEEP_MS).
 */
let changes = 0;

/** Called by each write above, in its transaction (a check that reads before the commit keeps its row only briefly). */
export function credentialsChanged(): void {
  changes++;
}

/** The count now: a row kept under an older count is read again. */
export function credentialChanges(): number {
  return changes;
}
