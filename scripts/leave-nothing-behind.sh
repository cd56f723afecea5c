#!/usr/bin/env bash
# Runs a command (in CI: `pnpm test`) and fails if it left anything in the temp folder, listing what.
# The command gets a temp folder of its own (TMPDIR, which Node's os.tmpdir(), Chromium, Bun and Deno
# follow), which must be empty afterwards; the system temp folder is compared before and after too, for
# anything that ignores TMPDIR. On a shared machine other programs may add to the system temp folder
# meanwhile: that comparison is exact only where nothing else runs, as in CI.
set -uo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: scripts/leave-nothing-behind.sh COMMAND [ARGS...]" >&2
  exit 2
fi

system_tmp="${TMPDIR:-/tmp}"
system_tmp="${system_tmp%/}"
own_tmp="$(mktemp -d "$system_tmp/leave-nothing-behind.XXXXXX")"
# Caches a tool keeps on purpose, one per user and reused by every run, are not leftovers:
# tsx's compile cache (tsx-<uid>), made by the docs build.
kept_caches='^tsx-[0-9]+$'
listing() { find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | grep -Ev "$kept_caches" | sort; }
before="$(listing "$system_tmp")"

TMPDIR="$own_tmp" "$@"
status=$?

left_in_own="$(listing "$own_tmp")"
left_in_system="$(comm -13 <(printf '%s\n' "$before") <(listing "$system_tmp") | grep -vxF "$(basename "$own_tmp")")"
rm -rf "$own_tmp"

if [ -n "$left_in_own$left_in_system" ]; then
  echo "leave-nothing-behind: '$*' left these in the temp folder:" >&2
  [ -n "$left_in_own" ] && sed "s|^|  \$TMPDIR/|" <<<"$left_in_own" >&2
  [ -n "$left_in_system" ] && sed "s|^|  $system_tmp/|" <<<"$left_in_system" >&2
  [ "$status" -eq 0 ] && status=1
else
  echo "leave-nothing-behind: '$*' left nothing in the temp folder"
fi
exit "$status"
