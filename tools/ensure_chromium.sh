#!/usr/bin/env bash
# Chromium for the browser tier (`make browser-test`), from Debian's packages only: never a
# browser download. Exit 0: Chromium is there (installed now with apt-get when missing and
# we are root). Exit 3: none and none can be installed here: the tier is skipped with one
# line. Under CI=true that case fails instead (exit 1). $HYPERSKILL_CHROMIUM names another
# binary to use.
set -uo pipefail
have() { [ -x "${HYPERSKILL_CHROMIUM:-/usr/bin/chromium}" ]; }
if ! have && [ -z "${HYPERSKILL_CHROMIUM:-}" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "browser tier: installing Debian's chromium (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null \
    || echo "browser tier: apt-get install chromium failed"
fi
if have; then exit 0; fi
what="no Chromium at ${HYPERSKILL_CHROMIUM:-/usr/bin/chromium} (Debian: apt-get install chromium, as root)"
if [ "${CI:-}" = "true" ]; then
  echo "browser tier: $what; CI=true, so this fails"
  exit 1
fi
echo "browser tier skipped: $what"
exit 3
