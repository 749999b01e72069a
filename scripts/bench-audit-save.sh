#!/bin/sh
# The extra latency of the audit record on a task save (issue 23): the audit-save bench scenario
# run in a checkout of the commit before the audit log (BASE, default 91d6e85) and in this tree,
# one after the other, same machine, same window. The base checkout is a temporary git worktree
# under .tmp/ sharing this tree's node_modules; it is removed at the end.
#   scripts/bench-audit-save.sh [--saves=N]
# With BATON_TEST_MYSQL_URL set, MariaDB is measured too. Results: bench/results/audit-save-{before,after}.json.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=${BASE:-91d6e85}
TREE="$ROOT/.tmp/audit-save-base"
cleanup() { git -C "$ROOT" worktree remove --force "$TREE" 2>/dev/null || true; }
trap cleanup EXIT
cleanup
git -C "$ROOT" worktree add --detach "$TREE" "$BASE" >/dev/null
ln -s "$ROOT/node_modules" "$TREE/node_modules"
cp "$ROOT/bench/scenarios/audit-save.ts" "$TREE/bench/scenarios/audit-save.ts"
printf "import { auditSave } from './audit-save';\n" >> "$TREE/bench/scenarios/index.ts"
sed -i 's/^export const SCENARIOS: readonly Scenario\[\] = \[/export const SCENARIOS: readonly Scenario[] = [auditSave, /' "$TREE/bench/scenarios/index.ts"
(cd "$TREE" && node -r ./bench/register.cjs bench/run.ts audit-save --tag=before "$@")
cp "$TREE/bench/results/audit-save-before.json" "$ROOT/bench/results/"
(cd "$ROOT" && node -r ./bench/register.cjs bench/run.ts audit-save --tag=after "$@")
