#!/usr/bin/env bash
# Installs what the tests need on a Debian machine that has Node.js: the Debian packages the tests drive
# for real, and pnpm 12. The README's set-up line and .ci/run both call it; it installs only what is
# missing, says what it will install first, and uses sudo for apt-get only when not already root.
set -euo pipefail

say() { printf 'setup: %s\n' "$*"; }

# Node.js >= 20.19 (the engines field of every package); the script does not install Node itself.
if ! command -v node >/dev/null 2>&1; then
  say "Node.js is not installed: install Node.js 20.19 or newer (Debian: apt-get install nodejs npm), then rerun." >&2
  exit 1
fi
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
  say "Node.js $(node --version) is too old: the packages need 20.19 or newer." >&2
  exit 1
fi

# Each command a test drives, and the Debian package that ships it.
tools=(chromium:chromium nginx:nginx haproxy:haproxy prometheus:prometheus promtool:prometheus ps:procps)
# `pnpm bench` also drives wrk (a load generator in C), gcc (it builds a fast stand-in vLLM) and valgrind
# (it counts HAProxy's instructions per request).
tools+=(wrk:wrk gcc:gcc valgrind:valgrind)
found() { PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin" command -v "$1" >/dev/null 2>&1; }
missing=()
for tool in "${tools[@]}"; do
  command="${tool%%:*}" package="${tool#*:}"
  if ! found "$command" && [[ " ${missing[*]} " != *" $package "* ]]; then missing+=("$package"); fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  say "the tests drive Debian packages that are missing here: ${missing[*]}"
  if ! command -v apt-get >/dev/null 2>&1; then
    say "no apt-get on this machine: install ${missing[*]} yourself; the tests that need them will fail until then." >&2
  else
    as_root=()
    if [ "$(id -u)" -ne 0 ]; then
      if ! command -v sudo >/dev/null 2>&1; then
        say "installing needs root and there is no sudo: run as root: apt-get install -y ${missing[*]}" >&2
        exit 1
      fi
      as_root=(sudo)
      say "apt-get needs root: asking sudo"
    fi
    say "installing with apt-get: ${missing[*]}"
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
else
  say "Debian packages the tests and the bench drive are present: chromium, nginx, haproxy, prometheus (with promtool), procps, wrk, gcc, valgrind"
fi

# pnpm 12 from the npm registry (corepack's download cannot verify its signature on every machine).
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version | cut -d. -f1)" != "12" ]; then
  say "installing pnpm 12: npm install -g pnpm@12"
  npm install -g pnpm@12 --no-fund --no-audit --loglevel=error
else
  say "pnpm $(pnpm --version) is present"
fi
