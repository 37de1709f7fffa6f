# Sourced by the ensure-*-tools scripts: `install_or_tell PACKAGE WHAT-FOR` installs a Debian
# package when we can (root with apt-get, as on CI and the dev machines) and otherwise says how;
# returns 1 when it could not install.
install_or_tell() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "Installing Debian's $1 for $2..." >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$1" >/dev/null
  else
    echo "$2 needs Debian's $1: sudo apt-get install $1" >&2
    return 1
  fi
}
