#!/usr/bin/env bash
# THE test command: unit tests (surefire) and integration tests against a real Kafka broker and a real
# VictoriaMetrics (failsafe, *IT), through `mvn -B verify`. Extra arguments go to mvn (e.g. -Dit.test=StackSmokeIT).
# Exit code: mvn's (2 when no JDK >= 21 can be found).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

find_java
ensure_maven
ensure_victoria_metrics

log "== mvn -B verify $*"
exec mvn -B -ntp verify "$@"
