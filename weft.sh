#!/usr/bin/env bash
# weft.sh: set-up and entry points for a fresh Debian 12 machine with Rust.
#   ./weft.sh demo   install what is missing, then run the main job on built-in defaults
#   ./weft.sh test   install what is missing, then run the whole test suite (what CI runs)
#   ./weft.sh deps   only install the apt packages
set -euo pipefail
cd "$(dirname "$0")"

APT_PACKAGES="llvm-19-dev clang-19 libpolly-19-dev zlib1g-dev libzstd-dev cmake"

ensure_deps() {
    local missing=""
    for p in $APT_PACKAGES; do
        dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        echo "weft.sh: installing$missing" >&2
        local sudo=""
        [ "$(id -u)" = 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
    fi
    command -v cargo >/dev/null || { echo "weft.sh: cargo not found; install Rust (https://rustup.rs)" >&2; exit 1; }
}

case "${1:-}" in
    deps) ensure_deps ;;
    demo)
        ensure_deps
        shift
        # The dev profile is optimised (opt-level 1, dependencies 2) and shares its
        # build with `./weft.sh test`, so the demo does not pay for a second build.
        cargo run --quiet -- demo "$@"
        ;;
    test)
        ensure_deps
        shift
        cargo test --workspace "$@"
        ;;
    *)
        sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'
        exit 2
        ;;
esac
