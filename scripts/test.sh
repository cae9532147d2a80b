#!/usr/bin/env bash
# THE test command: unit tests (surefire) and integration tests against a real Kafka broker and a real
# VictoriaMetrics (failsafe, *IT), through `mvn -B verify`. Extra arguments go to mvn (e.g. -Dit.test=StackSmokeIT).
# Then the deploy check: docker-compose config, the Grafana dashboard, the Kubernetes manifests (strict schemas),
# and every flag used in compose/k8s against the jar's --help (scripts/check-deploy.sh).
# Exit code: non-zero when either fails (2 when no JDK >= 21 can be found).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

find_java
ensure_maven
ensure_victoria_metrics
ensure_telegraf
ensure_prometheus
ensure_chromium
ensure_victoria_metrics_current
ensure_prometheus_current
ensure_victoria_metrics_cluster

log "== mvn -B verify $*"
mvn -B -ntp verify "$@"

log "== scripts/check-deploy.sh"
bash "$REPO_ROOT/scripts/check-deploy.sh"
