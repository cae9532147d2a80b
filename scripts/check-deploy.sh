#!/usr/bin/env bash
# Checks the deployment files: Dockerfile, docker-compose.yml, the Grafana dashboard and provisioning, the k8s
# kustomize base and overlays, and that every tsdb-writer flag and --config key they use exists in the jar's --help.
#
#   bash scripts/check-deploy.sh
#
# Installs what it needs on first use and caches it under target/deploy-tools (override: DEPLOY_TOOLS_DIR):
# docker-compose (Debian package, when missing), kubernetes-validate (PyPI, in a venv) and kustomize (go install
# through the Go module proxy; `kubectl kustomize` when Go is missing). Re-runs take a few seconds.
# Prints one line per check (PASS / FAIL / SKIP) and exits non-zero when any check failed.
#
# Environment: TSDB_WRITER_JAR (default target/tsdb-writer.jar), JAVA (a java of release 21 or later),
# K8S_VERSIONS (Kubernetes versions to validate against, default "1.31,1.37").
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

TOOLS=${DEPLOY_TOOLS_DIR:-$ROOT/target/deploy-tools}
WORK=$ROOT/target/deploy-check
KUSTOMIZE_VERSION=v5.8.2          # v5.8.3 needs Go 1.27; this one builds with the Go of the project's machines
KUBERNETES_VALIDATE_VERSION=1.37.0
K8S_VERSIONS=${K8S_VERSIONS:-1.31,1.37}
JAR=${TSDB_WRITER_JAR:-$ROOT/target/tsdb-writer.jar}
# The k8s overlay must write into a VMCluster's vminsert (operator naming: vminsert-<name>.<namespace>.svc).
VMCLUSTER_URL_RE='http://vminsert-[a-z0-9-]+\.[a-z0-9-]+\.svc(\.cluster\.local)?:8480/insert/[0-9]+(:[0-9]+)?/prometheus'
# ... and read every vmstorage's /metrics for the durability window (pod vmstorage-<name>-<i> of the headless Service).
VMSTORAGE_PAGE_RE='http://vmstorage-[a-z0-9-]+-[0-9]+\.vmstorage-[a-z0-9-]+\.[a-z0-9-]+\.svc(\.cluster\.local)?:8482/metrics'

mkdir -p "$TOOLS" "$WORK"
PASSED=0 FAILED=0 SKIPPED=0
pass() { PASSED=$((PASSED + 1)); printf 'PASS  %-34s %s\n' "$1" "$2"; }
fail() { FAILED=$((FAILED + 1)); printf 'FAIL  %-34s %s\n' "$1" "$2"; }
skip() { SKIPPED=$((SKIPPED + 1)); printf 'SKIP  %-34s %s\n' "$1" "$2"; }
# check NAME COMMAND...: runs the command, PASS with its last output line, FAIL with all of it (indented).
check() {
    local name=$1 out rc
    shift
    out=$("$@" 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then
        pass "$name" "$(printf '%s\n' "$out" | tail -n 1)"
    else
        fail "$name" "(exit $rc)"
        printf '%s\n' "$out" | sed 's/^/      /'
    fi
    return $rc
}

# ------------------------------------------------------------------------------------------------------ tools

COMPOSE=()
if command -v docker-compose >/dev/null 2>&1; then
    COMPOSE=(docker-compose)
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing docker-compose (apt) ..."
    if (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose) >"$WORK/apt.log" 2>&1; then
        COMPOSE=(docker-compose)
    else
        tail -n 5 "$WORK/apt.log"
    fi
fi
if [ ${#COMPOSE[@]} -eq 0 ] && docker compose version >/dev/null 2>&1; then
    COMPOSE=(docker compose)
fi

VENV=$TOOLS/venv
PY=$VENV/bin/python
if ! "$PY" -c "import kubernetes_validate, sys; from importlib.metadata import version; \
sys.exit(version('kubernetes-validate') != '$KUBERNETES_VALIDATE_VERSION')" >/dev/null 2>&1; then
    echo "installing kubernetes-validate $KUBERNETES_VALIDATE_VERSION into $VENV ..."
    rm -rf "$VENV"
    if ! (python3 -m venv "$VENV" && "$VENV/bin/pip" install -q --disable-pip-version-check \
            "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION") >"$WORK/pip.log" 2>&1; then
        tail -n 5 "$WORK/pip.log"
    fi
fi
HAVE_PY=0
"$PY" -c "import kubernetes_validate, yaml, jsonschema" >/dev/null 2>&1 && HAVE_PY=1

KUSTOMIZE=()
KBIN=$TOOLS/bin/kustomize
if [ -x "$KBIN" ] && "$KBIN" version 2>/dev/null | grep -qx "$KUSTOMIZE_VERSION"; then
    KUSTOMIZE=("$KBIN")
elif command -v go >/dev/null 2>&1; then
    echo "installing kustomize $KUSTOMIZE_VERSION (go install) into $TOOLS/bin ..."
    if GOTOOLCHAIN=local GOBIN="$TOOLS/bin" go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION" \
            >"$WORK/go-install.log" 2>&1; then
        KUSTOMIZE=("$KBIN")
    else
        tail -n 5 "$WORK/go-install.log"
    fi
fi
if [ ${#KUSTOMIZE[@]} -eq 0 ] && command -v kubectl >/dev/null 2>&1; then
    echo "kustomize: using the one built into kubectl"
    KUSTOMIZE=(kubectl kustomize)
fi

# --------------------------------------------------------------------------------------------------- checks

# Dockerfile: the rules of the issue, read statically (no Docker engine needed).
dockerfile_rules() {
    local bad=0
    grep -Eq '^ARG BUILD_IMAGE=maven:3\.9-eclipse-temurin-21$' Dockerfile || { echo "build stage is not maven:3.9-eclipse-temurin-21"; bad=1; }
    grep -Eq '^ARG RUNTIME_IMAGE=eclipse-temurin:25-jre$' Dockerfile || { echo "runtime stage is not eclipse-temurin:25-jre (the AOT cache needs JDK 25)"; bad=1; }
    grep -Eq -- '-XX:AOTCacheOutput=' scripts/aot-train-image.sh && grep -Eq 'AOTCache=/app/tsdb-writer.aot' Dockerfile \
        || { echo "no AOT cache built into the image (scripts/aot-train-image.sh, -XX:AOTCache in JAVA_OPTS)"; bad=1; }
    grep -Eq 'RUN --mount|^# syntax=' Dockerfile && { echo "BuildKit-only syntax: the classic builder must still build it"; bad=1; }
    [ "$(grep -c '^FROM ' Dockerfile)" -ge 2 ] || { echo "not multi-stage"; bad=1; }
    local user
    user=$(grep -E '^USER ' Dockerfile | tail -n 1 | awk '{print $2}')
    # USER ${UID}:${UID} with ARG UID=10001: resolve the ARG's default.
    local uid_default
    uid_default=$(sed -n 's/^ARG UID=\([0-9]*\).*/\1/p' Dockerfile | tail -n 1)
    user=${user//\$\{UID\}/$uid_default}
    case "$user" in ''|root|0|0:*|root:*) echo "last USER is '${user:-none}', not a non-root user"; bad=1 ;; esac
    grep -q 'MaxRAMPercentage' Dockerfile || { echo "JVM not sized from the container limit (-XX:MaxRAMPercentage)"; bad=1; }
    grep -Eq '^EXPOSE 9464' Dockerfile || { echo "metrics port 9464 not exposed"; bad=1; }
    [ -f .dockerignore ] || { echo "no .dockerignore"; bad=1; }
    [ $bad -eq 0 ] && echo "multi-stage, JDK 21 build / AOT cache / JRE 25 run, USER $user, MaxRAMPercentage, .dockerignore"
    return $bad
}
check "dockerfile" dockerfile_rules

# docker-compose.yml
if [ ${#COMPOSE[@]} -eq 0 ]; then
    fail "compose: config -q" "docker-compose not found and could not be installed"
else
    if check "compose: ${COMPOSE[*]} config -q" bash -c '"$@" -f docker-compose.yml config -q && echo "valid ($("$@" version --short 2>/dev/null || "$@" version | head -n 1))"' _ "${COMPOSE[@]}"; then
        "${COMPOSE[@]}" -f docker-compose.yml config >"$WORK/compose.resolved.yml" 2>"$WORK/compose.err"
        if [ $HAVE_PY = 1 ]; then
            check "compose: stack rules" "$PY" scripts/check_deploy.py compose "$WORK/compose.resolved.yml"
        fi
    fi
fi
[ $HAVE_PY = 1 ] || fail "python tools" "kubernetes-validate venv unusable ($VENV): see $WORK/pip.log"

# VictoriaMetrics versions are pinned in pom.xml only: compose's image tags must carry victoriametrics.current.version
# (the release the vm-current integration tests run).
vm_compose_tags() {
    local want bad
    want=$(sed -n 's:.*<victoriametrics.current.version>\(.*\)</victoriametrics.current.version>.*:\1:p' pom.xml)
    [ -n "$want" ] || { echo "victoriametrics.current.version missing from pom.xml"; return 1; }
    bad=$(grep -oE 'victoriametrics/[a-z-]+:[^ "]+' docker-compose.yml | grep -vE ":${want}(-cluster)?$")
    [ -z "$bad" ] || { echo "docker-compose.yml images not at $want (pom.xml): $bad"; return 1; }
    echo "$(grep -cE 'image: victoriametrics/' docker-compose.yml) images at $want"
}
check "versions: compose VictoriaMetrics tags" vm_compose_tags

# vmagent scrape config and Grafana provisioning parse as YAML.
if [ $HAVE_PY = 1 ]; then
    check "yaml: vmagent + grafana provisioning" "$PY" scripts/check_deploy.py provisioning \
        examples/vmagent/scrape.yml grafana/provisioning/datasources/*.yml grafana/provisioning/dashboards/*.yml
fi

# The receivers' example configs, by their own tools where installed.
if command -v promtool >/dev/null 2>&1; then
    check "receivers: prometheus.yml" promtool check config examples/receivers/prometheus.yml
else
    skip "receivers: prometheus.yml" "no promtool (apt-get install prometheus to enable)"
fi

# Grafana dashboard
DASH=grafana/dashboards/tsdb-writer-efficiency.json
if [ $HAVE_PY = 1 ]; then
    check "dashboard: structure" "$PY" scripts/check_deploy.py dashboard "$DASH"
else
    check "dashboard: structure" python3 scripts/check_deploy.py dashboard "$DASH"
fi

# Every dashboard query parses: sent to a throwaway single-node VictoriaMetrics on loopback, when one is installed.
if command -v victoria-metrics >/dev/null 2>&1; then
    VM_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    rm -rf "$WORK/vm-data"
    victoria-metrics -httpListenAddr="127.0.0.1:$VM_PORT" -storageDataPath="$WORK/vm-data" -retentionPeriod=1d \
        >"$WORK/vm.log" 2>&1 &
    VM_PID=$!
    trap 'kill "$VM_PID" 2>/dev/null' EXIT
    for _ in $(seq 1 50); do
        python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$VM_PORT/health', timeout=1)" \
            >/dev/null 2>&1 && break
        sleep 0.2
    done
    check "dashboard: queries parse" python3 scripts/check_deploy.py promql "$DASH" "http://127.0.0.1:$VM_PORT"
    kill "$VM_PID" 2>/dev/null
    wait "$VM_PID" 2>/dev/null
    trap - EXIT
else
    skip "dashboard: queries parse" "no victoria-metrics binary (apt-get install victoria-metrics to enable)"
fi

# k8s: build base and overlay, validate strictly; the grace period covers drain timeout + durability window + the
# self-halt margin (read from the writer's sources) in every one.
kbuild() {
    "${KUSTOMIZE[@]}" build "$1" >"$2" || return 1
    echo "$(grep -c '^kind:' "$2") objects, with ${KUSTOMIZE[*]##*/}"
}
BUILT=()
if [ ${#KUSTOMIZE[@]} -eq 0 ]; then
    fail "k8s: kustomize build" "no kustomize: install Go (go install) or kubectl"
else
    for dir in k8s/base k8s/overlays/vmcluster k8s/overlays/secured k8s/overlays/prometheus-operator; do
        name=$(basename "$dir")
        out=$WORK/k8s-$name.yaml
        if check "k8s: kustomize build $dir" kbuild "$dir" "$out"; then
            BUILT+=("$out")
            if [ $HAVE_PY = 1 ]; then
                extra=()
                [ "$name" = vmcluster ] && extra=(--expect-vm-url "$VMCLUSTER_URL_RE" --expect-tsdb-metrics-url "$VMSTORAGE_PAGE_RE")
                check "k8s: validate $dir" "$PY" scripts/check_deploy.py k8s "$name" "$out" \
                    --versions "$K8S_VERSIONS" "${extra[@]}"
            fi
        fi
    done
fi

# Alert rules: the same groups in every built manifest, accepted by promtool and vmalert (whichever is installed).
if [ $HAVE_PY = 1 ] && [ ${#BUILT[@]} -gt 0 ]; then
    RULE_TOOLS=()
    for t in promtool vmalert; do
        command -v "$t" >/dev/null 2>&1 && RULE_TOOLS+=(--tool "$(command -v "$t")")
    done
    check "k8s: alert rules" "$PY" scripts/check_deploy.py rules "${BUILT[@]}" --out "$WORK/rules.yml" "${RULE_TOOLS[@]}"
fi

# Flags: every --flag, TSDB_WRITER_* variable and key of a --config file (examples/writer/writer.yaml, the rendered
# k8s writer.yaml) used above exists in the jar's `run --help` / `produce --help`.
find_java() {
    local j v
    for j in ${JAVA:-} ${JAVA_HOME:+$JAVA_HOME/bin/java} "$(command -v java 2>/dev/null)" /usr/lib/jvm/*/bin/java; do
        [ -x "$j" ] || continue
        v=$("$j" -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ {print $2}')
        if [ -n "$v" ] && [ "${v%%.*}" -ge 21 ] 2>/dev/null; then
            echo "$j"
            return 0
        fi
    done
    return 1
}
if [ $HAVE_PY = 1 ] && [ -f "$WORK/compose.resolved.yml" ]; then
    if [ ! -f "$JAR" ]; then
        "$PY" scripts/check_deploy.py flags docker-compose.yml "${BUILT[@]}" >"$WORK/flags.txt" 2>&1
        skip "flags: compose + k8s vs --help" "no jar at ${JAR#"$ROOT"/} (mvn -DskipTests package builds it): $(tail -n 1 "$WORK/flags.txt")"
    elif ! JAVA_BIN=$(find_java); then
        fail "flags: compose + k8s vs --help" "no Java 21+ to run ${JAR#"$ROOT"/} (set JAVA or JAVA_HOME)"
    else
        check "flags: compose + k8s vs --help" "$PY" scripts/check_deploy.py flags docker-compose.yml "${BUILT[@]}" \
            --java "$JAVA_BIN" --jar "$JAR"
    fi
else
    fail "flags: compose + k8s vs --help" "needs the python tools and a valid docker-compose.yml"
fi

echo "check-deploy: $PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
