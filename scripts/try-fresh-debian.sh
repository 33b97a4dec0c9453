#!/usr/bin/env bash
# The fresh-machine proof of README's Quick start (issue #26): a Debian 12 root made by
# debootstrap (minbase: apt, dpkg, bash, coreutils), with only the Swift toolchain added (this
# machine's toolchain folder bind-mounted read-only, plus the Debian libraries its programs link
# and the C runtime it links with, and `make`), this repository's committed branch cloned into
# it, then `make sheet` and `make test` exactly as README writes them, as root; then a user
# without sudo and one with it meet the package step (a library removed first, so there is one
# to install); with USER_BUILD=1 the user with sudo then runs `make sheet` in a clone of their own.
# Key lines and times go to stdout; the whole transcript to $LOG. The root is removed at the end.
#
#   sudo [USER_BUILD=1] scripts/try-fresh-debian.sh [--keep]   (needs debootstrap: apt-get install debootstrap)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
branch=$(git -C "$repo" rev-parse --abbrev-ref HEAD)
root=${ROOT:-/var/tmp/masonry-fresh-debian}
log=${LOG:-/tmp/masonry-fresh-debian.log}
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")   # /opt/swift/usr
toolchain=$(dirname "$toolchain")                                           # /opt/swift
keep=${1:-}
: > "$log"

step() {   # step <title> <command...>: runs it, logs everything, prints the time it took
    local started=$SECONDS status=0
    echo "== $1" | tee -a "$log"
    shift
    "$@" >> "$log" 2>&1 || status=$?
    echo "   $(( SECONDS - started )) s, exit $status" | tee -a "$log"
    return $status
}
in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH="$toolchain/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin" LANG=C.UTF-8 "$@"; }
as_user() { in_root su - "$1" -c "export PATH=$toolchain/usr/bin:\$PATH; $2"; }
cleanup() {
    for mount in "$root$toolchain" "$root/dev/shm" "$root/dev/pts" "$root/dev" "$root/sys" "$root/proc"; do
        mountpoint -q "$mount" && umount -l "$mount"
    done
    [ "$keep" = --keep ] || rm -rf "$root"
}
trap cleanup EXIT

rm -rf "$root"
step "debootstrap --variant=minbase bookworm ($mirror)" debootstrap --variant=minbase bookworm "$root" "$mirror"
mkdir -p "$root$toolchain"
mount --bind "$toolchain" "$root$toolchain" && mount -o remount,bind,ro "$root$toolchain"
mount -t proc proc "$root/proc"; mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"; mount --bind /dev/pts "$root/dev/pts"; mount -t tmpfs shm "$root/dev/shm"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# What the toolchain's programs link (ldd of swift-frontend, swift-build, swift-driver, clang, lld)
# and what its linker needs (C runtime, libstdc++, binutils); make for the Makefile.
step "the toolchain's own Debian packages, and make" in_root sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends binutils libc6-dev libgcc-12-dev libstdc++-12-dev libcurl4 libxml2 \
    libsqlite3-0 libncurses6 libicu72 libuuid1 libffi8 tzdata ca-certificates make"
in_root swift --version 2>&1 | head -1 | tee -a "$log"
git clone -q --branch "$branch" "$repo" "$root/root/masonry"
echo "cloned $branch at $(git -C "$root/root/masonry" log --oneline -1)" | tee -a "$log"

step "make sheet (root)" in_root sh -c "cd /root/masonry && make sheet"
grep -E "^installing:|Build of product|Compiling|masonry: wrote" "$log" | grep -v Compiling | tail -4
file "$root/root/masonry/sheet.png" | tee -a "$log"
step "make test (root)" in_root sh -c "cd /root/masonry && make test"
grep -E "^installing:|Test run with|Executed .* tests|skipped" "$log" | tail -5

# A user without sudo, then one with it, meet a missing package.
in_root sh -c "DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq libdeflate-dev && useradd -m guest && useradd -m builder" >> "$log" 2>&1
for user in guest builder; do cp -r "$root/root/masonry/scripts" "$root/home/$user/"; done
step "guest, no sudo on the machine: scripts/install-packages.sh" as_user guest "scripts/install-packages.sh" || true
grep "^masonry: missing" "$log" | tail -1
in_root sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sudo && echo 'builder ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/builder" >> "$log" 2>&1
step "builder, with sudo: scripts/install-packages.sh" as_user builder "scripts/install-packages.sh"
grep "^installing:" "$log" | tail -1
if [ "${USER_BUILD:-}" = 1 ]; then
    git clone -q --branch "$branch" "$repo" "$root/home/builder/masonry" && in_root chown -R builder: /home/builder/masonry
    step "make sheet (builder)" as_user builder "cd masonry && make sheet"
    grep "masonry: wrote" "$log" | tail -1
fi
