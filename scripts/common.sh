# Shared by scripts/run, scripts/test and scripts/fuzz: install what is
# missing, then configure and build. Source it; do not run it.

WARDEN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILDDIR=${BUILDDIR:-$WARDEN_ROOT/_build}

# Debian 12 / Ubuntu package names. scripts/run installs what the build and
# the app need; scripts/test adds what only the tests use (an sshd, X server,
# valgrind …): opening the window must not start an ssh server.
WARDEN_BUILD_PACKAGES=(
  meson ninja-build gcc pkg-config gettext
  libglib2.0-dev libjson-glib-dev libsoup-3.0-dev libsqlite3-dev
  libgtk-4-dev libadwaita-1-dev libvte-2.91-gtk4-dev libsecret-1-dev
  # code in the chat coloured as GNOME's editors colour it
  libgtksourceview-5-dev
  # install hooks and the data checks meson sets up: icon cache, desktop
  # database, validators
  libgtk-4-bin desktop-file-utils appstream
  # the exec guard's system call filter
  libseccomp-dev
  # checkpoints: the shadow repository of each workspace
  libgit2-dev
)
WARDEN_APP_PACKAGES=(
  # the sandbox where no Docker engine is: bubblewrap and its network
  # namespace's way out
  bubblewrap slirp4netns
)
WARDEN_TEST_PACKAGES=(
  # the ssh engine tests start their own sshd and reach the engine through ssh
  openssh-server openssh-client
  # the differential oracle runs allowed lines under every /bin/sh Warden meets
  dash busybox-static
  valgrind
  # the network tests: real curl through the proxy, in the sandbox and out, and a
  # test CA for the proxy tests' HTTPS server
  curl openssl
  # the UI tests: an X server, a session bus, a notification daemon, a keyring
  xvfb xauth dbus dbus-x11 python3-dbusmock gnome-keyring imagemagick xdotool
)

as_root () {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Installs the packages given that are not installed yet.
install_missing () {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing: ${missing[*]}"
  if ! command -v apt-get >/dev/null; then
    echo "error: apt-get not found; install these yourself: ${missing[*]}" >&2
    return 1
  fi
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
}

# The packages `build` installs: the build's and the app's, and with
# "tests" the test suite's too.
warden_packages () {
  printf '%s\n' "${WARDEN_BUILD_PACKAGES[@]}" "${WARDEN_APP_PACKAGES[@]}"
  if [ "${1:-}" = tests ]; then
    printf '%s\n' "${WARDEN_TEST_PACKAGES[@]}"
  fi
}

# Progress goes to standard error, so what Warden prints stays clean.
# `build tests` also installs what the suite needs.
build () {
  local packages
  mapfile -t packages < <(warden_packages "${1:-}")
  install_missing "${packages[@]}" >&2
  if [ ! -f "$BUILDDIR/build.ninja" ]; then
    meson setup "$BUILDDIR" "$WARDEN_ROOT" >&2
  fi
  meson compile -C "$BUILDDIR" >&2
}
