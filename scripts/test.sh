#!/usr/bin/env bash
# THE test command: unit tests (surefire) and integration tests against a real Kafka broker and a real
# VictoriaMetrics (failsafe, *IT), through `mvn -B verify`. Extra arguments go to mvn (e.g. -Dit.test=StackSmokeIT).
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
  PHASES+=("$(printf '%-34s %5d s' "$name" "$took")")
  log "== phase $name: ${took} s"
}
print_phases() {
  log "== phase times"
  local line
  for line in "${PHASES[@]}"; do log "   $line"; done
}
trap print_phases EXIT

find_java
phase "install maven" ensure_maven
phase "install victoria-metrics (Debian)" ensure_victoria_metrics
phase "build telegraf" ensure_telegraf
phase "install prometheus (Debian)" ensure_prometheus
phase "install chromium" ensure_chromium
phase "build victoria-metrics current" ensure_victoria_metrics_current
phase "build vmagent" ensure_vmagent_current
phase "build vmauth current" ensure_vmauth_current
phase "build prometheus 3" ensure_prometheus_current
phase "build victoria-metrics cluster" ensure_victoria_metrics_cluster
phase "build thanos" ensure_thanos
phase "build relabel oracle" ensure_relabel_oracle
phase "install mkdocs" ensure_mkdocs

docs_site() {
  log "== $MKDOCS build --strict --site-dir target/site"
  "$MKDOCS" build --strict --site-dir "$REPO_ROOT/target/site"
  python3 "$REPO_ROOT/scripts/check_readme_links.py" "$REPO_ROOT/target/site"
}
phase "docs site" docs_site

log "== mvn -B verify $*"
phase "mvn verify" mvn -B -ntp verify "$@"

log "== scripts/check-deploy.sh"
phase "check-deploy" bash "$REPO_ROOT/scripts/check-deploy.sh"
