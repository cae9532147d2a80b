# shellcheck shell=bash
# Helpers sourced by scripts/test.sh and scripts/demo.sh (and .ci/run through test.sh).
#
#   find_java                 JAVA_HOME := a JDK >= 21 (JAVA_HOME if good, else the newest under /usr/lib/jvm; tries
#                             apt-get for one when none is there); exports JAVA_HOME, PATH, MAVEN_OPTS. Exit 2 if none.
#   ensure_maven              apt-get install -y maven when mvn is missing
#   ensure_victoria_metrics   apt-get install -y victoria-metrics when /usr/bin/victoria-metrics is missing
#
# Every install goes through Debian's apt (sudo only when not root); nothing is downloaded from elsewhere.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO_ROOT
MIN_JAVA=21

log()  { printf '%s\n' "$*" >&2; }
die()  { log "error: $*"; exit 1; }

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root (or sudo) to run: $*"
  fi
}

_APT_UPDATED=0
# apt-get update, once per script run; non-zero when it fails.
apt_update_once() {
  [ "$_APT_UPDATED" -eq 1 ] && return 0
  log "== apt-get update"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || return 1
  _APT_UPDATED=1
}

apt_install() {
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install $* by hand"
  apt_update_once || die "apt-get update failed"
  log "== apt-get install -y $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >&2 \
    || die "apt-get install $* failed"
}

_can_root() { [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1; }

# Major version of a java launcher ("17", "21", "25"; "8" for 1.8), or empty when it does not run.
java_major() {
  local spec
  spec=$("$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}' | tr -d '[:space:]')
  case "$spec" in
    1.*) echo "${spec#1.}" ;;
    *) echo "$spec" ;;
  esac
}

# Prints the home of the newest JDK (with javac) >= MIN_JAVA under /usr/lib/jvm, or nothing.
_newest_jdk() {
  local best="" best_v=0 dir home v
  for dir in /usr/lib/jvm/*/; do
    home=$(readlink -f "${dir%/}")
    if [ ! -x "$home/bin/java" ] || [ ! -x "$home/bin/javac" ]; then continue; fi
    v=$(java_major "$home/bin/java")
    [[ "$v" =~ ^[0-9]+$ ]] || continue
    if [ "$v" -ge "$MIN_JAVA" ] && [ "$v" -gt "$best_v" ]; then
      best="$home"; best_v="$v"
    fi
  done
  [ -n "$best" ] && echo "$best"
  return 0
}

_use_jdk() {
  JAVA_HOME="$1"
  export JAVA_HOME
  PATH="$JAVA_HOME/bin:$PATH"
  export PATH
  local v
  v=$(java_major "$JAVA_HOME/bin/java")
  # JDK >= 24 warns when a library (Maven's Guava, Kafka) uses sun.misc.Unsafe memory access; the flag only
  # exists from 24 on, older JDKs refuse to start with it.
  if [ "$v" -ge 24 ] && [[ " ${MAVEN_OPTS:-} " != *" --sun-misc-unsafe-memory-access="* ]]; then
    MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }--sun-misc-unsafe-memory-access=allow"
  fi
  export MAVEN_OPTS="${MAVEN_OPTS:-}"
  log "== java: $JAVA_HOME (Java $v)"
}

find_java() {
  local v home
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
    v=$(java_major "$JAVA_HOME/bin/java")
    if [[ "$v" =~ ^[0-9]+$ ]] && [ "$v" -ge "$MIN_JAVA" ]; then
      _use_jdk "$JAVA_HOME"
      return 0
    fi
  fi
  home=$(_newest_jdk)
  if [ -z "$home" ] && command -v apt-get >/dev/null 2>&1 && _can_root && apt_update_once; then
    # Debian 12 has no JDK 21 package; newer releases do. Install whichever this apt knows.
    local pkg
    for pkg in openjdk-25-jdk-headless openjdk-21-jdk-headless; do
      if apt-cache show "$pkg" >/dev/null 2>&1; then
        apt_install "$pkg"
        break
      fi
    done
    home=$(_newest_jdk)
  fi
  if [ -z "$home" ]; then
    echo "no JDK >= $MIN_JAVA found: install one (e.g. apt-get install -y openjdk-21-jdk-headless, or a Temurin 21+ JDK) or set JAVA_HOME" >&2
    exit 2
  fi
  _use_jdk "$home"
}

ensure_maven() {
  if ! command -v mvn >/dev/null 2>&1; then
    apt_install maven
  fi
  command -v mvn >/dev/null 2>&1 || die "mvn still missing after installing maven"
}

VICTORIA_METRICS_BIN=/usr/bin/victoria-metrics
ensure_victoria_metrics() {
  if [ ! -x "$VICTORIA_METRICS_BIN" ]; then
    apt_install victoria-metrics
  fi
  [ -x "$VICTORIA_METRICS_BIN" ] || die "$VICTORIA_METRICS_BIN still missing after installing victoria-metrics"
}
