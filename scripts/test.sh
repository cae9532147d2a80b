#!/usr/bin/env bash
# THE test command: unit tests (surefire) and integration tests against a real Kafka broker and a real
# VictoriaMetrics (failsafe, *IT), in two Maven runs: `mvn -B package` (unit and fuzz tests) while the Go-built
# receivers build in the background, then `mvn -B verify -Dunit.skip=true` (the integration tests) while the last of
# them still build (a test that needs one waits for it). Extra arguments go to both (e.g. -Dit.test=StackSmokeIT).
# Then the deploy check: docker-compose config, the Grafana dashboard, the Kubernetes manifests (strict schemas),
# and every flag used in compose/k8s against the jar's --help (scripts/check-deploy.sh). Before them the docs site:
# `mkdocs build --strict` of mkdocs.yml into target/site (navigation, every link and anchor of docs/; MkDocs pinned in
# scripts/lib.sh) and README.md's own links and anchors into it (scripts/check_readme_links.py).
# Exit code: non-zero when either fails (2 when no JDK >= 21 can be found).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

# each phase's wall time, printed as it ends and once more as a table at the end (the CI budget is 90 minutes)
PHASES=()
phase() {
  local name=$1 t0=$SECONDS
  shift
  "$@"
  local took=$((SECONDS - t0))
  PHASES+=("$(printf '%-42s %5d s' "$name" "$took")")
  log "== phase $name: ${took} s"
}
print_phases() {
  log "== phase times"
  local line
  for line in "${PHASES[@]}"; do log "   $line"; done
}
GO_PID=
GO_MARKER="$REPO_ROOT/target/go-builds.running"
on_exit() {
  [ -z "$GO_PID" ] || kill "$GO_PID" 2>/dev/null || true # a failed phase leaves no Go build running behind it
  rm -f "$GO_MARKER"
  print_phases
}
trap on_exit EXIT

find_java
phase "install maven" ensure_maven
phase "install victoria-metrics (Debian)" ensure_victoria_metrics
phase "install prometheus (Debian)" ensure_prometheus
phase "install chromium" ensure_chromium
phase "install mkdocs" ensure_mkdocs

# The Go builds (minutes each on a new machine, nothing once cached by version) run in the background while the
# relabel oracle, the docs site, the unit tests and the first integration tests run: target/go-builds.running holds
# the builds' PID and the binaries not built yet while they run, and a test that needs one of those waits for it
# (it/support/GoBuilds.java; each binary is renamed into place whole). Their lines go to target/go-builds.log, printed when they end; their times
# join the table below. The quick ones first: today's VictoriaMetrics decides at Maven's start whether the vm-current
# executions run, and the slow Prometheus 3 and Thanos builds end while the first test classes run.
GO_BUILDS=(
  "build victoria-metrics current:ensure_victoria_metrics_current"
  "build vmagent:ensure_vmagent_current"
  "build vmauth current:ensure_vmauth_current"
  "build victoria-metrics cluster:ensure_victoria_metrics_cluster"
  "build telegraf:ensure_telegraf"
  "build prometheus 3:ensure_prometheus_current"
  "build thanos:ensure_thanos"
  "build otelcol:ensure_otelcol"
)
# the binaries each build makes: the marker lists those whose build has not ended, so a test never waits for one
# whose build ended without it (the cluster's, where the module proxy does not serve its tag)
declare -A GO_BINARIES=(
  [ensure_victoria_metrics_current]="victoria-metrics" [ensure_vmagent_current]="vmagent" [ensure_vmauth_current]="vmauth"
  [ensure_victoria_metrics_cluster]="vmstorage vminsert vmselect" [ensure_telegraf]="telegraf"
  [ensure_prometheus_current]="prometheus" [ensure_thanos]="thanos" [ensure_otelcol]="otelcol"
)
mkdir -p "$REPO_ROOT/target"
GO_LOG="$REPO_ROOT/target/go-builds.log"
GO_TIMES="$REPO_ROOT/target/go-builds.times"
: > "$GO_TIMES"
# target/go-builds.running: the building shell's PID, then one line per binary not built yet (GoBuilds.java reads it)
write_go_marker() {
  local pid=$1 step
  shift
  {
    echo "$pid"
    for step in "$@"; do printf '%s\n' ${GO_BINARIES[${step#*:}]}; done
  } > "$GO_MARKER.tmp"
  mv -f "$GO_MARKER.tmp" "$GO_MARKER"
}
go_builds() {
  local i step name fn t0
  for i in "${!GO_BUILDS[@]}"; do
    step=${GO_BUILDS[$i]} name=${step%%:*} fn=${step#*:} t0=$SECONDS
    "$fn" || return 1
    write_go_marker "$BASHPID" "${GO_BUILDS[@]:$((i + 1))}"
    printf '%-42s %5d s\n' "$name (beside)" "$((SECONDS - t0))" >> "$GO_TIMES"
  done
}
log "== Go builds in the background (log: target/go-builds.log)"
(
  write_go_marker "$BASHPID" "${GO_BUILDS[@]}"
  rc=0
  go_builds || rc=$?
  rm -f "$GO_MARKER"
  exit "$rc"
) > "$GO_LOG" 2>&1 &
GO_PID=$!
# today's VictoriaMetrics, built first: the vm-current profile is active only when it exists as Maven starts
await_vm_current() {
  local waited=0
  while grep -qx victoria-metrics "$GO_MARKER" 2>/dev/null && [ ! -x "$VICTORIA_METRICS_CURRENT_BIN" ] && [ "$waited" -lt 600 ]; do
    sleep 1
    waited=$((waited + 1))
  done
}
await_go_builds() {
  local rc=0
  wait "$GO_PID" || rc=$?
  GO_PID=
  cat "$GO_LOG" >&2
  local line
  while IFS= read -r line; do PHASES+=("$line"); done < "$GO_TIMES"
  [ "$rc" -eq 0 ] || die "a Go build failed (above)"
  # again in this shell, each at once now: what they export (the binaries' paths) reaches the tests
  local step
  for step in "${GO_BUILDS[@]}"; do "${step#*:}" >/dev/null 2>&1 || die "${step%%:*} failed"; done
}

phase "build relabel oracle" ensure_relabel_oracle

docs_site() {
  log "== $MKDOCS build --strict --site-dir target/site"
  "$MKDOCS" build --strict --site-dir "$REPO_ROOT/target/site"
  python3 "$REPO_ROOT/scripts/check_readme_links.py" "$REPO_ROOT/target/site"
}
phase "docs site" docs_site

log "== mvn -B package $* (unit and fuzz tests, the Go builds beside)"
phase "mvn package (unit tests)" mvn -B -ntp package "$@"
phase "wait for victoria-metrics current" await_vm_current
# what ensure_telegraf and ensure_otelcol export once built (InputFormatsIT waits for the file while the builds run)
if command -v go >/dev/null 2>&1; then
  export TSDB_WRITER_TELEGRAF_BINARY="$HOME/.cache/tsdb-writer/bin/telegraf" TSDB_WRITER_OTELCOL_BINARY="$HOME/.cache/tsdb-writer/bin/otelcol"
fi
log "== mvn -B verify -Dunit.skip=true $* (integration tests; the Go builds beside until they end)"
# the formatter and the linter ran in the package phase above: not again
phase "mvn verify (integration tests)" mvn -B -ntp verify -Dunit.skip=true -Dspotless.check.skip=true -Dcheckstyle.skip=true "$@"
phase "wait for the Go builds" await_go_builds

log "== scripts/check-deploy.sh"
phase "check-deploy" bash "$REPO_ROOT/scripts/check-deploy.sh"
