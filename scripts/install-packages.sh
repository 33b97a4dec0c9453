#!/usr/bin/env bash
# Installs the Debian packages of scripts/debian-packages.txt that are not installed yet, for
# `make sheet` / `make build` (the build packages) and `make test` / `.ci/run` (with --test: the
# build packages and the lines marked `test`). As root it runs apt-get; otherwise through sudo
# when there is sudo; otherwise it prints the exact command and stops (exit 1).
#
#   scripts/install-packages.sh [--test] [--list | --dry-run]
#     --list      print the packages, one a line, and stop
#     --dry-run   print the apt-get command for the missing ones (nothing when none is missing)
set -euo pipefail
list="$(dirname "$0")/debian-packages.txt"
scope=build
mode=install
for argument in "$@"; do
    case "$argument" in
        --test) scope=test ;;
        --list) mode=list ;;
        --dry-run) mode=dry-run ;;
        *) echo "usage: $0 [--test] [--list | --dry-run]" >&2; exit 64 ;;
    esac
done

# One package a line; `#` starts a comment; a second word `test` keeps the line for --test.
packages=$(awk -v scope="$scope" '{ sub(/#.*/, "") } NF && ($2 != "test" || scope == "test") { print $1 }' "$list")
if [ "$mode" = list ]; then
    echo "$packages"
    exit 0
fi
if ! command -v dpkg-query >/dev/null; then
    echo "masonry: not a Debian system (no dpkg-query): install the equivalents of: $(echo $packages)" >&2
    exit 0
fi
missing=()
for package in $packages; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

command="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$mode" = dry-run ]; then
    echo "$command"
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
    run=(env DEBIAN_FRONTEND=noninteractive)
elif command -v sudo >/dev/null; then
    run=(sudo env DEBIAN_FRONTEND=noninteractive)
else
    echo "masonry: missing Debian packages ${missing[*]}; as root, run: $command" >&2
    exit 1
fi
echo "installing: ${missing[*]}"
"${run[@]}" apt-get update -qq
"${run[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
