# shellcheck shell=bash
# Helpers sourced by scripts/test.sh, demo.sh, bench.sh, bench-ab.sh and jmh.sh (and .ci/run through test.sh).
#
#   find_java                 JAVA_HOME := a JDK >= 21 (JAVA_HOME if good, else the newest under /usr/lib/jvm; tries
#                             apt-get for one when none is there); exports JAVA_HOME, PATH, MAVEN_OPTS. Exit 2 if none.
#   ensure_maven              apt-get install -y maven when mvn is missing
#   ensure_victoria_metrics   apt-get install -y victoria-metrics when /usr/bin/victoria-metrics is missing
#   ensure_prometheus         apt-get install -y prometheus when /usr/bin/prometheus is missing (remote write receiver)
#   ensure_victoria_metrics_current
#                             today's VictoriaMetrics (pom.xml victoriametrics.current.version) built with
#                             `go install` into ~/.cache/tsdb-writer/bin when missing or of another version; the
#                             integration suite then also runs against it (pom profile vm-current). Without Go: one
#                             line, and the suite runs against the Debian build only
#   ensure_vmagent_current    vmagent of the same release (pom.xml victoriametrics.current.version: one pin)
#                             built with `go install` into ~/.cache/tsdb-writer/bin/vmagent when missing or of another
#                             version: the second relabeling oracle of RelabelVmagentIT (Debian's vmagent 1.79.5
#                             predates keepequal/dropequal). Without Go: one line, and that test is skipped
#   ensure_vmauth_current     vmauth of the same single-node release (same module and version as
#                             ensure_victoria_metrics_current) built with `go install` into ~/.cache/tsdb-writer/bin:
#                             it maps each /insert/<tenant>/ prefix to a VictoriaMetrics of its own in TenantRoutingIT
#                             (where the cluster's -cluster tags are not served). Without Go: one line, those tests skip
#   ensure_victoria_metrics_cluster
#                             the VictoriaMetrics cluster (pom.xml victoriametrics.cluster.version, a `-cluster` tag):
#                             vminsert, vmselect and vmstorage built with `go install` into ~/.cache/tsdb-writer/bin
#                             when missing or of another version: the cluster of VerifyClusterIT. Without Go, or when
#                             the Go module proxy does not serve the tag: one line, and those tests are skipped
#   ensure_prometheus_current
#                             Prometheus 3 (pom.xml prometheus.current.version, the Go module version of a 3.x release)
#                             built with `go install` into ~/.cache/tsdb-writer/bin/prometheus when missing or of another
#                             version: the Remote-Write 2.0 receiver of RemoteWriteIT. Without Go: one line, and those
#                             tests are skipped
#   ensure_thanos             Thanos (pom.xml thanos.version) built from its module source with `go build` into
#                             ~/.cache/tsdb-writer/bin/thanos when missing or of another version: the receiver (with its
#                             defaults: no out-of-order window) and query of SeriesOrderIT. `go install thanos@version`
#                             refuses a module with replace directives, so the module is downloaded and built as the
#                             main module (with its release's build tags, netgo and slicelabels); it asks for a newer Go
#                             than the machine's, which GOTOOLCHAIN=auto fetches from the Go module proxy. Without Go, or when that fails: one line, and those tests are skipped
#   ensure_otelcol            the OpenTelemetry Collector (pom.xml otelcol.builder.version, otelcol.contrib.version):
#                             its builder (ocb) from the Go module proxy, then a Collector of kafkareceiver,
#                             prometheusremotewriteexporter and kafkaexporter (scripts/otelcol/manifest.yaml) into
#                             ~/.cache/tsdb-writer/bin/otelcol when missing or of other versions (a stamp file); exports
#                             TSDB_WRITER_OTELCOL_BINARY. Without Go, or when the build fails: one line, and the peer
#                             comparisons skip the Collector
#   ensure_mkdocs             MkDocs MKDOCS_VERSION (pinned below, the one place) from PyPI with pip into a venv
#                             under ~/.cache/tsdb-writer/mkdocs-venv when missing or of another version (python3 and
#                             Debian's python3-venv through apt when missing); sets MKDOCS to its mkdocs: the docs
#                             site of mkdocs.yml, built strictly by scripts/test.sh (phase "docs site")
#   ensure_chromium           apt-get install -y chromium when /usr/bin/chromium is missing (and TSDB_WRITER_CHROMIUM
#                             names none): the headless browser CapacityReportPageIT renders capacity's report page in
#   quiet_jvm_flags           prints JVM flags that silence JDK >= 24 warnings about libraries' Unsafe/native use
#   build_test_classpath LOG  mvn package -DskipTests + target/test.classpath (test scope); tail of LOG on failure
#   start_local_stack DIR TOPIC:PARTITIONS
#                             starts Kafka + VictoriaMetrics (LocalStack) on free loopback ports, waits until ready
#                             (STACK_START_TIMEOUT, default 240 s), sets BOOTSTRAP_SERVERS, VM_URL, STACK_PID;
#                             STACK_PROMETHEUS=1|3 adds Prometheus 2|3 (PROMETHEUS_URL), STACK_THANOS=1 Thanos
#                             receive (THANOS_URL: its /metrics host, THANOS_REMOTE_WRITE_URL);
#                             STACK_TSDB_CPUS / STACK_WRITER_CPUS (cpulists) start VictoriaMetrics (and Prometheus)
#                             under taskset -c STACK_TSDB_CPUS and Kafka under taskset -c STACK_WRITER_CPUS; the
#                             stack lives while fd 3 (a FIFO only this script holds) is open: stop_local_stack
#                             (installed as an EXIT trap by the caller) closes it and stops the stack
#   stop_local_stack_on_exit  installs that EXIT trap (keeping the exit code), and exit 130/143 on SIGINT/SIGTERM
#   has_flag FLAG ARGS...     true when ARGS hold FLAG (as `FLAG` or `FLAG=value`)
#   flag_value FLAG ARGS...   prints the value of FLAG in ARGS (`FLAG value` or `FLAG=value`; the last one wins), or
#                             nothing
#   ensure_telegraf           builds Telegraf 1.37.2 with only the plugins the input-format tests use into
#                             $HOME/.cache/tsdb-writer/bin (go install; the Go module cache makes reruns quick) and
#                             exports TSDB_WRITER_TELEGRAF_BINARY; without go it says so in one line and the tests
#                             that need Telegraf are skipped
#
# Every install goes through Debian's apt (sudo only when not root), the Go module proxy (`go install`) or PyPI (pip,
# MkDocs only); nothing is downloaded from elsewhere.

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

TELEGRAF_VERSION=v1.37.2
TELEGRAF_TAGS="custom,inputs.file,inputs.kafka_consumer,outputs.kafka,outputs.influxdb,parsers.prometheus,parsers.influx,parsers.json,serializers.influx,serializers.prometheusremotewrite,serializers.graphite"
ensure_telegraf() {
  local bin_dir="$HOME/.cache/tsdb-writer/bin"
  local bin="$bin_dir/telegraf"
  # go install leaves the version unset (`telegraf --version` says "unknown"): a stamp file records what was built
  local stamp="$bin_dir/telegraf.built"
  if [ ! -x "$bin" ] || { [ -f "$stamp" ] && [ "$(cat "$stamp")" != "$TELEGRAF_VERSION $TELEGRAF_TAGS" ]; }; then
    if ! command -v go >/dev/null 2>&1; then
      log "go not found: Telegraf $TELEGRAF_VERSION cannot be built; the input-format tests that need it are skipped"
      return 0
    fi
    log "== building Telegraf $TELEGRAF_VERSION into $bin_dir (go install, about a minute the first time)"
    mkdir -p "$bin_dir"
    _go_install_into "$bin" -tags "$TELEGRAF_TAGS" "github.com/influxdata/telegraf/cmd/telegraf@$TELEGRAF_VERSION" \
      || die "go install of Telegraf $TELEGRAF_VERSION failed"
    printf '%s\n' "$TELEGRAF_VERSION $TELEGRAF_TAGS" > "$stamp"
  fi
  export TSDB_WRITER_TELEGRAF_BINARY="$bin"
}

PROMETHEUS_BIN=/usr/bin/prometheus
ensure_prometheus() {
  if [ ! -x "$PROMETHEUS_BIN" ]; then
    apt_install prometheus
  fi
  [ -x "$PROMETHEUS_BIN" ] || die "$PROMETHEUS_BIN still missing after installing prometheus"
}

MKDOCS_VERSION=1.6.1
MKDOCS_VENV="$HOME/.cache/tsdb-writer/mkdocs-venv"
MKDOCS="$MKDOCS_VENV/bin/mkdocs"
ensure_mkdocs() {
  if [ -x "$MKDOCS" ] && "$MKDOCS" --version 2>/dev/null | grep -q "version $MKDOCS_VERSION "; then
    return 0
  fi
  command -v python3 >/dev/null 2>&1 || apt_install python3
  # Debian ships venv's pip bootstrap (ensurepip) in python3-venv
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    apt_install python3-venv
  fi
  log "== pip install mkdocs==$MKDOCS_VERSION into $MKDOCS_VENV (was: $("$MKDOCS" --version 2>/dev/null || echo missing))"
  rm -rf "$MKDOCS_VENV"
  python3 -m venv "$MKDOCS_VENV" || die "python3 -m venv $MKDOCS_VENV failed"
  "$MKDOCS_VENV/bin/python" -m pip install -q --disable-pip-version-check "mkdocs==$MKDOCS_VERSION" >&2 \
    || die "pip install mkdocs==$MKDOCS_VERSION failed"
  "$MKDOCS" --version 2>/dev/null | grep -q "version $MKDOCS_VERSION " || die "$MKDOCS is not MkDocs $MKDOCS_VERSION"
}

CHROMIUM_BIN=/usr/bin/chromium
ensure_chromium() {
  if [ -n "${TSDB_WRITER_CHROMIUM:-}" ] && [ -x "$TSDB_WRITER_CHROMIUM" ]; then
    return 0
  fi
  if [ ! -x "$CHROMIUM_BIN" ]; then
    apt_install chromium
  fi
  [ -x "$CHROMIUM_BIN" ] || die "$CHROMIUM_BIN still missing after installing chromium"
}

VICTORIA_METRICS_CURRENT_BIN="$HOME/.cache/tsdb-writer/bin/victoria-metrics"
_pom_property() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" "$REPO_ROOT/pom.xml" | head -n 1; }
ensure_victoria_metrics_current() {
  local version
  version=$(_pom_property victoriametrics.current.version)
  [ -n "$version" ] || die "victoriametrics.current.version missing from pom.xml"
  if ! command -v go >/dev/null 2>&1; then
    if [ -x "$VICTORIA_METRICS_CURRENT_BIN" ]; then
      log "go not found: using the cached $VICTORIA_METRICS_CURRENT_BIN as VictoriaMetrics $version (its version cannot be checked)"
    else
      log "go not found: integration tests run against VictoriaMetrics $(_pom_property victoriametrics.debian.version) only (install Go to also run them against $version)"
    fi
    return 0
  fi
  _go_install_pinned "$VICTORIA_METRICS_CURRENT_BIN" github.com/VictoriaMetrics/VictoriaMetrics \
    github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics "$version" VictoriaMetrics
}

VMAUTH_CURRENT_BIN="$HOME/.cache/tsdb-writer/bin/vmauth"
ensure_vmauth_current() {
  _ensure_victoria_metrics_app "$VMAUTH_CURRENT_BIN" vmauth "the tenant routing tests through vmauth are skipped"
}

# _ensure_victoria_metrics_app BIN APP SKIPPED: APP (app/APP of the VictoriaMetrics module) at
# victoriametrics.current.version, the one pin of ensure_victoria_metrics_current, built into BIN's directory; without
# Go, one line saying what is SKIPPED (when BIN is missing too)
_ensure_victoria_metrics_app() {
  local bin=$1 app=$2 skipped=$3 version
  version=$(_pom_property victoriametrics.current.version)
  [ -n "$version" ] || die "victoriametrics.current.version missing from pom.xml"
  if ! command -v go >/dev/null 2>&1; then
    [ -x "$bin" ] || log "go not found: $skipped (install Go to build $app $version)"
    return 0
  fi
  _go_install_pinned "$bin" github.com/VictoriaMetrics/VictoriaMetrics \
    "github.com/VictoriaMetrics/VictoriaMetrics/app/$app" "$version" "$app"
}

# _go_install_pinned BIN MODULE PACKAGE VERSION NAME [NOTE [TAGS]]: go install [-tags TAGS] PACKAGE@VERSION into BIN's
# directory unless BIN is already built from MODULE at VERSION (read back with `go version -m`). Needs go.
_go_install_pinned() {
  local bin=$1 module=$2 package=$3 version=$4 name=$5 note=${6:-} tags=${7:-} have=""
  if [ -x "$bin" ]; then
    have=$(go version -m "$bin" 2>/dev/null | awk -v m="$module" '$1 == "mod" && $2 == m { print $3 }')
  fi
  if [ "$have" != "$version" ]; then
    log "== go install $name $version into $(dirname "$bin") (was: ${have:-missing}${note:+; $note})"
    mkdir -p "$(dirname "$bin")"
    _go_install_into "$bin" ${tags:+-tags "$tags"} "$package@$version" || die "go install of $name $version failed"
  fi
}

# _go_install_into BIN GO-INSTALL-ARGS…: go install into a directory beside BIN, then BIN renamed into place, so BIN
# appears whole at once (the integration tests may wait for it while it builds: it/support/GoBuilds.java)
_go_install_into() {
  local bin=$1 tmp rc=0
  shift
  mkdir -p "$(dirname "$bin")"
  tmp=$(mktemp -d "$(dirname "$bin")/.go-install.XXXXXX")
  GOBIN="$tmp" go install "$@" || rc=$?
  [ "$rc" -ne 0 ] || mv -f "$tmp/$(basename "$bin")" "$bin" || rc=$?
  rm -rf "$tmp"
  return "$rc"
}

VMAGENT_BIN="$HOME/.cache/tsdb-writer/bin/vmagent"
# vmagent from the module and version of ensure_victoria_metrics_current: the Go build cache makes it quick after that one
ensure_vmagent_current() {
  _ensure_victoria_metrics_app "$VMAGENT_BIN" vmagent "RelabelVmagentIT is skipped"
}

VICTORIA_METRICS_CLUSTER_DIR="$HOME/.cache/tsdb-writer/bin"
ensure_victoria_metrics_cluster() {
  local version app bin have
  version=$(_pom_property victoriametrics.cluster.version)
  [ -n "$version" ] || die "victoriametrics.cluster.version missing from pom.xml"
  if ! command -v go >/dev/null 2>&1; then
    [ -x "$VICTORIA_METRICS_CLUSTER_DIR/vmstorage" ] \
      || log "go not found: the VictoriaMetrics cluster tests ($version) are skipped (install Go to run them)"
    return 0
  fi
  for app in vmstorage vminsert vmselect; do
    bin="$VICTORIA_METRICS_CLUSTER_DIR/$app"
    have=""
    if [ -x "$bin" ]; then
      have=$(go version -m "$bin" 2>/dev/null | awk '$1 == "mod" && $2 == "github.com/VictoriaMetrics/VictoriaMetrics" { print $3 }')
    fi
    [ "$have" = "$version" ] && continue
    log "== go install $app $version into $VICTORIA_METRICS_CLUSTER_DIR (was: ${have:-missing}; about a minute each the first time)"
    mkdir -p "$VICTORIA_METRICS_CLUSTER_DIR"
    # the cluster's commands live on the -cluster tags only; a module proxy that does not serve such a tag is not a
    # failure of the suite: the cluster tests say what is missing and are skipped
    if ! _go_install_into "$bin" "github.com/VictoriaMetrics/VictoriaMetrics/app/$app@$version"; then
      rm -f "$bin"
      log "go install of $app $version failed (is the tag served by the Go module proxy?): the VictoriaMetrics cluster tests are skipped"
      return 0
    fi
  done
}

PROMETHEUS_CURRENT_BIN="$HOME/.cache/tsdb-writer/bin/prometheus"
ensure_prometheus_current() {
  local version
  version=$(_pom_property prometheus.current.version)
  [ -n "$version" ] || die "prometheus.current.version missing from pom.xml"
  if ! command -v go >/dev/null 2>&1; then
    [ -x "$PROMETHEUS_CURRENT_BIN" ] \
      || log "go not found: the Remote-Write 2.0 tests (Prometheus $version) are skipped (install Go to run them)"
    return 0
  fi
  # remove_all_sd: Prometheus' own build tag that leaves out every service discovery but static, file and HTTP
  # (plugins/*.go): the tests only receive remote write and scrape static targets, and the cloud SDKs were most of the build
  _go_install_pinned "$PROMETHEUS_CURRENT_BIN" github.com/prometheus/prometheus \
    github.com/prometheus/prometheus/cmd/prometheus "$version" Prometheus "about 3 minutes the first time" remove_all_sd
}

THANOS_BIN="$HOME/.cache/tsdb-writer/bin/thanos"
ensure_thanos() {
  local version have dir
  version=$(_pom_property thanos.version)
  [ -n "$version" ] || die "thanos.version missing from pom.xml"
  if ! command -v go >/dev/null 2>&1; then
    [ -x "$THANOS_BIN" ] || log "go not found: the Thanos receive tests ($version) are skipped (install Go to run them)"
    return 0
  fi
  have=""
  if [ -x "$THANOS_BIN" ]; then
    have=$(go version -m "$THANOS_BIN" 2>/dev/null | awk '$1 == "mod" && $2 == "github.com/thanos-io/thanos" { print $3 }')
    # built as the main module, the binary names its version in the -X flag below
    [ -n "$have" ] && [ "$have" != "(devel)" ] || have=$("$THANOS_BIN" --version 2>&1 | awk '/thanos, version/ { print "v" $3 }')
  fi
  # Thanos needs Prometheus' slice labels (its .promu.yml builds with -tags netgo,slicelabels; without the tag the
  # receiver panics decoding the first series' labels)
  if [ "$have" = "$version" ] && go version -m "$THANOS_BIN" 2>/dev/null | grep -q -- '-tags=netgo,slicelabels'; then
    return 0
  fi
  log "== go build Thanos $version into $(dirname "$THANOS_BIN") (was: ${have:-missing}; several minutes the first time)"
  mkdir -p "$(dirname "$THANOS_BIN")"
  if ! dir=$(GOTOOLCHAIN=auto GOFLAGS=-mod=mod go mod download -json "github.com/thanos-io/thanos@$version" \
        | awk -F'"' '$2 == "Dir" { print $4 }') || [ -z "$dir" ]; then
    log "go mod download of Thanos $version failed: the Thanos receive tests are skipped"
    return 0
  fi
  if ! (cd "$dir" && GOTOOLCHAIN=auto GOFLAGS=-mod=mod go build -tags netgo,slicelabels \
        -ldflags "-X github.com/prometheus/common/version.Version=${version#v}" -o "$THANOS_BIN.part" ./cmd/thanos) \
     || ! mv -f "$THANOS_BIN.part" "$THANOS_BIN"; then # renamed into place: it appears whole at once
    rm -f "$THANOS_BIN" "$THANOS_BIN.part"
    log "go build of Thanos $version failed: the Thanos receive tests are skipped"
  fi
}

OTELCOL_BIN="$HOME/.cache/tsdb-writer/bin/otelcol"
ensure_otelcol() {
  local builder_version contrib_version stamp want work
  builder_version=$(_pom_property otelcol.builder.version)
  contrib_version=$(_pom_property otelcol.contrib.version)
  [ -n "$builder_version" ] && [ -n "$contrib_version" ] || die "otelcol.builder.version or otelcol.contrib.version missing from pom.xml"
  stamp="$OTELCOL_BIN.built"
  want="builder $builder_version contrib $contrib_version $(cksum < "$REPO_ROOT/scripts/otelcol/manifest.yaml" | cut -d' ' -f1)"
  if [ -x "$OTELCOL_BIN" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    export TSDB_WRITER_OTELCOL_BINARY="$OTELCOL_BIN"
    return 0
  fi
  if ! command -v go >/dev/null 2>&1; then
    log "go not found: the OpenTelemetry Collector $contrib_version cannot be built; the peer comparisons skip it"
    return 0
  fi
  log "== building the OpenTelemetry Collector $contrib_version (builder $builder_version) into $(dirname "$OTELCOL_BIN") (about 3 minutes the first time)"
  work="$HOME/.cache/tsdb-writer/otelcol-build"
  rm -rf "$work"
  mkdir -p "$work" "$(dirname "$OTELCOL_BIN")"
  sed -e "s:@CONTRIB_VERSION@:$contrib_version:g" -e "s:@OUTPUT_PATH@:$work/out:g" \
    "$REPO_ROOT/scripts/otelcol/manifest.yaml" > "$work/manifest.yaml"
  if ! GOBIN="$work/bin" go install "go.opentelemetry.io/collector/cmd/builder@$builder_version" \
     || ! (cd "$work" && "$work/bin/builder" --config "$work/manifest.yaml") \
     || ! mv -f "$work/out/otelcol" "$OTELCOL_BIN"; then # renamed into place: it appears whole at once
    log "the build of the OpenTelemetry Collector $contrib_version failed: the peer comparisons skip it"
    rm -rf "$work"
    return 0
  fi
  printf '%s\n' "$want" > "$stamp"
  rm -rf "$work"
  export TSDB_WRITER_OTELCOL_BINARY="$OTELCOL_BIN"
}

RELABEL_ORACLE_BIN="$HOME/.cache/tsdb-writer/bin/relabel-oracle"
# The relabel oracle (src/test/go/relabel-oracle): Prometheus' own model/relabel at prometheus.current.version, which
# RelabelOracleTest runs beside the writer's Java relabeling. Built every time (seconds once the module is cached).
ensure_relabel_oracle() {
  local version src="$REPO_ROOT/src/test/go/relabel-oracle"
  version=$(_pom_property prometheus.current.version)
  [ -n "$version" ] || die "prometheus.current.version missing from pom.xml"
  grep -q "github.com/prometheus/prometheus $version\$" "$src/go.mod" \
    || die "src/test/go/relabel-oracle/go.mod must require github.com/prometheus/prometheus $version (pom.xml's prometheus.current.version)"
  if ! command -v go >/dev/null 2>&1; then
    log "go not found: RelabelOracleTest is skipped (install Go to run it)"
    return 0
  fi
  mkdir -p "$(dirname "$RELABEL_ORACLE_BIN")"
  if ! (cd "$src" && GOTOOLCHAIN=auto GOFLAGS=-mod=mod go build -o "$RELABEL_ORACLE_BIN" .); then
    rm -f "$RELABEL_ORACLE_BIN"
    log "go build of the relabel oracle failed: RelabelOracleTest is skipped"
  fi
}

quiet_jvm_flags() {
  local v
  v=$(java_major "$JAVA_HOME/bin/java")
  if [ "$v" -ge 24 ]; then
    echo "--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED"
  fi
}

# mvn package -DskipTests (unless the jar is up to date), then the test-scope classpath into target/test.classpath (for LocalStack and JMH).
# Offline (-o) when MVN_OFFLINE=1. Output goes to $1; its tail is printed when a step fails.
build_test_classpath() {
  local build_log=$1 offline=()
  [ "${MVN_OFFLINE:-0}" = 1 ] && offline=(-o)
  mkdir -p "$(dirname "$build_log")"
  : >"$build_log"
  local args steps=("package -DskipTests")
  # an up-to-date jar is kept as it is: every `mvn package` writes a new jar, and a new jar makes its AOT cache
  # (scripts/aot-cache.sh) stale. Up to date = nothing under src/ nor pom.xml is newer than it, and test classes exist.
  if [ -f target/tsdb-writer.jar ] && [ -d target/test-classes ] && [ -z "$(find src pom.xml -newer target/tsdb-writer.jar -print -quit)" ]; then
    printf '+ target/tsdb-writer.jar is up to date: not rebuilt\n' >&2
    steps=()
  fi
  steps+=("dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/test.classpath")
  for args in "${steps[@]}"; do
    printf '+ mvn %s\n' "$args" >&2
    # shellcheck disable=SC2086 # args is a fixed word list
    if ! mvn -B -ntp "${offline[@]}" $args >>"$build_log" 2>&1 3>&-; then
      tail -n 80 "$build_log" >&2
      die "mvn $args failed (full log: $build_log)"
    fi
  done
  [ -f target/tsdb-writer.jar ] || die "target/tsdb-writer.jar was not built"
}

STACK_PID=""
STACK_FIFO=""
# start_local_stack WORK_DIR TOPIC:PARTITIONS...: see the header. Needs find_java and build_test_classpath first.
start_local_stack() {
  local dir=$1 topic_args=() t
  shift
  for t in "$@"; do topic_args+=(--topic "$t"); done
  for t in ${VM_EXTRA_FLAGS:-}; do topic_args+=(--vm-flag "$t"); done # e.g. VM_EXTRA_FLAGS=-maxConcurrentInserts=4
  if [ "${STACK_PROMETHEUS:-0}" = 1 ]; then topic_args+=(--prometheus); fi # a Prometheus remote write receiver too
  if [ "${STACK_PROMETHEUS:-0}" = 3 ]; then topic_args+=(--prometheus3); fi # Prometheus 3: Remote-Write 1.0 and 2.0
  if [ "${STACK_THANOS:-0}" = 1 ]; then topic_args+=(--thanos); fi # Thanos receive too (ensure_thanos first)
  # a Go TSDB sizes GOMAXPROCS and its concurrency limits from its CPU affinity at start: start it on its CPUs
  if [ -n "${STACK_TSDB_CPUS:-}" ]; then topic_args+=(--tsdb-cpus "$STACK_TSDB_CPUS"); fi
  if [ -n "${STACK_WRITER_CPUS:-}" ]; then topic_args+=(--writer-cpus "$STACK_WRITER_CPUS"); fi
  local env_file="$dir/stack.env" stack_log="$dir/stack.log" timeout="${STACK_START_TIMEOUT:-240}"
  mkdir -p "$dir"
  rm -f "$env_file"
  # LocalStack runs until its stdin ends: feed it from a FIFO that only this script holds open (fd 3), so the stack
  # goes away with this script even on kill -9; --exit-with-parent covers a child that still holds fd 3.
  STACK_FIFO="$dir/stack.stdin"
  rm -f "$STACK_FIFO"
  mkfifo "$STACK_FIFO"
  exec 3<>"$STACK_FIFO"
  "$JAVA_HOME/bin/java" -Xmx256m -cp "$REPO_ROOT/target/test-classes:$(cat "$REPO_ROOT/target/test.classpath")" \
    io.tsdbwriter.it.support.LocalStack "$dir/stack" "$env_file" "${topic_args[@]}" --exit-with-parent \
    <"$STACK_FIFO" >"$stack_log" 2>&1 3>&- &
  STACK_PID=$!
  local deadline=$((SECONDS + timeout))
  until [ -f "$env_file" ]; do
    if ! kill -0 "$STACK_PID" 2>/dev/null; then
      log "==== FAILED: the local stack exited before it was ready; $stack_log:"
      tail -n 60 "$stack_log" >&2 || true
      exit 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "==== FAILED: the local stack was not ready after ${timeout}s; $stack_log:"
      tail -n 60 "$stack_log" >&2 || true
      exit 1
    fi
    sleep 0.2
  done
  BOOTSTRAP_SERVERS=$(sed -n 's/^BOOTSTRAP_SERVERS=//p' "$env_file")
  VM_URL=$(sed -n 's/^VM_URL=//p' "$env_file")
  PROMETHEUS_URL=$(sed -n 's/^PROMETHEUS_URL=//p' "$env_file")
  THANOS_URL=$(sed -n 's/^THANOS_URL=//p' "$env_file")
  THANOS_REMOTE_WRITE_URL=$(sed -n 's/^THANOS_REMOTE_WRITE_URL=//p' "$env_file")
  if [ -z "$BOOTSTRAP_SERVERS" ] || [ -z "$VM_URL" ]; then die "incomplete $env_file"; fi
  export BOOTSTRAP_SERVERS VM_URL PROMETHEUS_URL THANOS_URL THANOS_REMOTE_WRITE_URL
}

# Stops the stack started by start_local_stack (idempotent): end of its stdin, SIGTERM, up to 60 s, then kill -9.
stop_local_stack() {
  if [ -n "$STACK_PID" ] && kill -0 "$STACK_PID" 2>/dev/null; then
    log "==== stopping Kafka and VictoriaMetrics (LocalStack pid $STACK_PID)"
    exec 3>&-                                   # end of its stdin ...
    kill -TERM "$STACK_PID" 2>/dev/null || true  # ... and SIGTERM; its shutdown hook stops both servers
    local _
    for _ in $(seq 1 120); do
      kill -0 "$STACK_PID" 2>/dev/null || break
      sleep 0.5
    done
    if kill -0 "$STACK_PID" 2>/dev/null; then
      log "LocalStack did not stop in 60 s: kill -9 (its children die with it)"
      kill -KILL "$STACK_PID" 2>/dev/null || true
    fi
    wait "$STACK_PID" 2>/dev/null || true
  fi
  STACK_PID=""
  if [ -n "$STACK_FIFO" ]; then
    rm -f "$STACK_FIFO"
    STACK_FIFO=""
  fi
}

# shellcheck disable=SC2317 # called by the EXIT trap
_stop_local_stack_and_exit() {
  local rc=$?
  stop_local_stack
  exit "$rc"
}

# Stops the local stack whenever the calling script ends, with the script's exit code; SIGINT/SIGTERM end it with
# 130/143 (which runs the EXIT trap).
stop_local_stack_on_exit() {
  trap _stop_local_stack_and_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

# has_flag FLAG ARGS...: true when ARGS hold FLAG, as `FLAG` or `FLAG=value` (a default is dropped when given).
has_flag() {
  local flag=$1 arg
  shift
  for arg in "$@"; do
    if [ "$arg" = "$flag" ] || [[ "$arg" == "$flag="* ]]; then return 0; fi
  done
  return 1
}

# flag_value FLAG ARGS...: see the header.
flag_value() {
  local flag=$1 value="" next=0 arg
  shift
  for arg in "$@"; do
    if [ "$next" = 1 ]; then value=$arg; next=0
    elif [ "$arg" = "$flag" ]; then next=1
    elif [[ "$arg" == "$flag="* ]]; then value=${arg#"$flag="}
    fi
  done
  printf '%s' "$value"
}
