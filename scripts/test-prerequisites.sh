#!/usr/bin/env bash
# Installs the Debian programs the test suite drives as independent peers, when they are missing.
# Run by `npm test` (its "pretest" step) and so by .ci/run: the README's one test command works
# on a fresh Debian 12 machine with nothing installed by hand.
#   xmllint (libxml2-utils)        OAI-PMH responses validated against the official XSDs
#   oai_pmh (libhttp-oai-perl)     HTTP::OAI, an independent OAI-PMH harvester
#   Atompub::Client (libatompub-perl)  an independent SWORD 1.3 / AtomPub client
#   chromium                       the browser tests (/auth sign-in), driven by playwright-core
#   script (bsdutils), openssl     the terminal test's pseudo-terminal; a self-signed certificate
#   gpg                            GnuPG, an independent OpenPGP verifier of the node's signatures
#   prlimit (util-linux)           a node started under a small open-files limit
#   oauthlib (python3-oauthlib)    an independent OAuth 1.0 client (RFC 5849), run by /usr/bin/python3
# test/support/programs.ts lists the same programs: a test that needs a missing one fails, never skips.
# Without root (or password-less sudo) it names what is missing and stops, so the tests that need
# those programs never run half-equipped.
set -euo pipefail

need=()
command -v xmllint >/dev/null 2>&1 || need+=(libxml2-utils)
command -v oai_pmh >/dev/null 2>&1 || need+=(libhttp-oai-perl)
perl -MAtompub::Client -MXML::Atom::Client -e1 >/dev/null 2>&1 || need+=(libatompub-perl)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v script >/dev/null 2>&1 || need+=(bsdutils)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v gpg >/dev/null 2>&1 || need+=(gpg)
command -v prlimit >/dev/null 2>&1 || need+=(util-linux)
/usr/bin/python3 -c 'import oauthlib' >/dev/null 2>&1 || need+=(python3-oauthlib)
[ ${#need[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "the tests need these Debian packages: ${need[*]}" >&2
  echo "install them with: sudo apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "installing the test suite's Debian packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
