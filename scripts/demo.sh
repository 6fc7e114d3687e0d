#!/bin/sh
# The main job on the bundled sample vault, in a throw-away copy: list, check, search, and a
# maintenance dry run. Usage: sh scripts/demo.sh   (after `pip install .`)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
cp -R "$here/sample-vault" "$work/vault"
cd "$work/vault"
git init -q -b main
git add -A
git -c user.name=cardvault -c user.email=cardvault@localhost commit -qm "sample vault"
export CARDVAULT_VAULT="$work/vault"
echo "== sample vault copied to $work/vault"
echo "== cardvault list"; cardvault list
echo "== cardvault check"; cardvault check || true
if cardvault search --help >/dev/null 2>&1; then
  echo "== cardvault index"; cardvault index
  echo "== cardvault search 'image built on my Mac crashes in the cluster'"
  cardvault search "image built on my Mac crashes in the cluster" -k 5
fi
if cardvault maintain --help >/dev/null 2>&1; then
  echo "== cardvault maintain --dry-run"; cardvault maintain --dry-run
fi
# the search above started the vault's resident process (warm search): leave nothing running
cardvault serve --stop >/dev/null 2>&1 || true
echo "== done: explore it with  CARDVAULT_VAULT=$work/vault cardvault --help"
