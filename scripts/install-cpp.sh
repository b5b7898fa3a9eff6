#!/usr/bin/env bash
# Installs rootweave's C and C++ library under PREFIX, as C and C++ projects consume it:
#
#   PREFIX/include/rootweave.h, rootweave.hpp        (every header of crates/rootweave-c/include)
#   PREFIX/lib/librootweave.so.X.Y.Z                 (debug info stripped, SONAME librootweave.so.<abi>)
#   PREFIX/lib/librootweave.so.<abi> -> librootweave.so.X.Y.Z
#   PREFIX/lib/librootweave.so -> librootweave.so.<abi>
#   PREFIX/lib/librootweave.a                        (debug info stripped)
#   PREFIX/lib/pkgconfig/rootweave.pc                (pkg-config --cflags --libs rootweave)
#   PREFIX/lib/cmake/rootweave/rootweaveConfig.cmake, rootweaveConfigVersion.cmake
#                                                    (find_package(rootweave CONFIG): targets
#                                                     rootweave::rootweave, rootweave::rootweave_static)
#
# <abi> is major.minor before 1.0 and major after (as crates/rootweave-c/build.rs sets the
# SONAME). The version is the crate's (Cargo.toml), read here once. Every installed path is
# relative to its own file (pkg-config's ${pcfiledir}, CMake's CMAKE_CURRENT_LIST_DIR), so
# the tree may be moved. Builds first with `cargo rustc --release -p rootweave-c --lib` (into
# $CARGO_TARGET_DIR if set). Running it again replaces what it installed.
#
# Usage: scripts/install-cpp.sh PREFIX
set -euo pipefail

die() { echo "install-cpp.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] && [ -n "$1" ] || die "usage: scripts/install-cpp.sh PREFIX"
ROOT_DIR=$(cd "$(dirname "$0")/.." && pwd)
CRATE="$ROOT_DIR/crates/rootweave-c"

for tool in cargo objcopy readelf sed install ln mktemp; do
  command -v "$tool" >/dev/null \
    || die "'$tool' is not on PATH (cargo: rustup.rs; objcopy and readelf: Debian's binutils)"
done

mkdir -p "$1" || die "cannot make the prefix $1"
PREFIX=$(cd "$1" && pwd)

# The version, from Cargo.toml (the workspace's [workspace.package] version, which the crate
# inherits): `cargo pkgid` resolves the inheritance.
PKGID=$(cd "$ROOT_DIR" && cargo pkgid -p rootweave-c) || die "cargo pkgid -p rootweave-c failed"
VERSION=${PKGID##*[#@]}
[[ "$VERSION" =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || die "unexpected version '$VERSION' (from $PKGID)"
MAJOR=${BASH_REMATCH[1]}
MINOR=${BASH_REMATCH[2]}
if [ "$MAJOR" = 0 ]; then ABI="0.$MINOR"; else ABI="$MAJOR"; fi
SONAME="librootweave.so.$ABI"

echo "== cargo rustc --release -p rootweave-c --lib ($VERSION)"
# One build of the library's three crate types (cdylib, staticlib, rlib), which also says
# the system libraries the static archive needs, as rustc lists them for this build (the C
# library's parts: the XRootD bridge is embedded and loaded at run time); cargo replays
# rustc's note when nothing changed.
NOTE=$(cd "$ROOT_DIR" && cargo rustc --release -p rootweave-c --lib \
  -- --print native-static-libs 2>&1) || { echo "$NOTE" >&2; die "cargo rustc -p rootweave-c failed"; }
NATIVE_LIBS=$(echo "$NOTE" | sed -n 's/.*native-static-libs: *//p' | tail -1)
[ -n "$NATIVE_LIBS" ] || { echo "$NOTE" >&2; die "rustc printed no native-static-libs"; }
# The same as CMake list items: -lfoo -> foo.
CMAKE_LIBS=$(echo "$NATIVE_LIBS" | sed 's/^-l//; s/ -l/;/g; s/ /;/g')

TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT_DIR/target}
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT_DIR/$TARGET_DIR" ;; esac
SO="$TARGET_DIR/release/librootweave_c.so"
AR="$TARGET_DIR/release/librootweave_c.a"
[ -f "$SO" ] && [ -f "$AR" ] || die "the build left no $SO or $AR"
readelf -d "$SO" | grep -q "Library soname: \[$SONAME\]" \
  || die "$SO has not the SONAME $SONAME (see crates/rootweave-c/build.rs): $(readelf -d "$SO" | grep SONAME)"

INSTALLED=()
# Copies through a temporary file in the destination directory and renames it, so that a
# program running the library that was there keeps its (unlinked) file.
put() {  # put MODE SOURCE DEST [objcopy]
  local mode=$1 src=$2 dest=$3 tmp
  tmp=$(mktemp "$(dirname "$dest")/.install.XXXXXX")
  if [ "${4:-}" = objcopy ]; then
    objcopy --strip-debug "$src" "$tmp" || { rm -f "$tmp"; die "objcopy --strip-debug $src failed"; }
  else
    cp "$src" "$tmp"
  fi
  chmod "$mode" "$tmp"
  mv -f "$tmp" "$dest"
  INSTALLED+=("$dest")
}
link() {  # link TARGET NAME
  ln -sfn "$1" "$2"
  INSTALLED+=("$2 -> $1")
}
fill() {  # fill TEMPLATE DEST: the template with @VERSION@, @ABI@, @NATIVE_LIBS@ and @CMAKE_LIBS@ set
  local tmp
  tmp=$(mktemp "$(dirname "$2")/.install.XXXXXX")
  sed -e "s|@VERSION@|$VERSION|g" -e "s|@ABI@|$ABI|g" -e "s|@MAJOR@|$MAJOR|g" -e "s|@MINOR@|$MINOR|g" \
      -e "s|@NATIVE_LIBS@|$NATIVE_LIBS|g" -e "s|@CMAKE_LIBS@|$CMAKE_LIBS|g" "$1" > "$tmp"
  chmod 644 "$tmp"
  mv -f "$tmp" "$2"
  INSTALLED+=("$2")
}

install -d "$PREFIX/include" "$PREFIX/lib/pkgconfig" "$PREFIX/lib/cmake/rootweave"
shopt -s nullglob
HEADERS=("$CRATE"/include/*.h "$CRATE"/include/*.hpp)
[ ${#HEADERS[@]} -gt 0 ] || die "no headers in $CRATE/include"
for header in "${HEADERS[@]}"; do
  put 644 "$header" "$PREFIX/include/$(basename "$header")"
done
put 755 "$SO" "$PREFIX/lib/librootweave.so.$VERSION" objcopy
link "librootweave.so.$VERSION" "$PREFIX/lib/$SONAME"
link "$SONAME" "$PREFIX/lib/librootweave.so"
put 644 "$AR" "$PREFIX/lib/librootweave.a" objcopy
fill "$CRATE/pkgconfig/rootweave.pc.in" "$PREFIX/lib/pkgconfig/rootweave.pc"
fill "$CRATE/cmake/rootweaveConfig.cmake.in" "$PREFIX/lib/cmake/rootweave/rootweaveConfig.cmake"
fill "$CRATE/cmake/rootweaveConfigVersion.cmake.in" "$PREFIX/lib/cmake/rootweave/rootweaveConfigVersion.cmake"

readelf -d "$PREFIX/lib/librootweave.so.$VERSION" | grep -q "Library soname: \[$SONAME\]" \
  || die "the installed library lost its SONAME"
if readelf -S --wide "$PREFIX/lib/librootweave.so.$VERSION" | grep -q ' \.debug_'; then
  die "the installed library still has debug sections"
fi

echo "== installed rootweave $VERSION (SONAME $SONAME) under $PREFIX"
for path in "${INSTALLED[@]}"; do echo "  $path"; done
echo "   static archive's system libraries: $NATIVE_LIBS"
