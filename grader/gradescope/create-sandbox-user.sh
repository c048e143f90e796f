#!/usr/bin/env bash
# Creates the unprivileged users the grader runs student code as when it grades as root (Gradescope's containers,
# a CI job under sudo): shardlings-sandbox and shardlings-sandbox-2 … -8. Each sandbox leases one user for its
# lifetime (SandboxUsers), so up to eight grades can run side by side on one machine (a batch grade with --jobs)
# without one killing another's processes. Without the users the grade still runs, with the barriers that need no
# root (see docs/grading-integrity.md); results.json's extra_data.barriers says which were active.
# Idempotent: users that exist are left as they are. Needs root.
set -euo pipefail
for user in shardlings-sandbox shardlings-sandbox-{2..8}; do
  if id -u "$user" >/dev/null 2>&1; then
    continue
  fi
  if command -v useradd >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --user-group "$user"
  elif command -v adduser >/dev/null 2>&1; then   # Alpine / BusyBox
    adduser -S -D -H -h /nonexistent -s /sbin/nologin "$user"
  else
    echo "neither useradd nor adduser is installed: cannot create $user" >&2
    exit 1
  fi
done
