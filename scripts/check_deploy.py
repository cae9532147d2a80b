#!/usr/bin/env python3
"""Checks of the deployment files, run by scripts/check-deploy.sh (which provides the tools and the venv).

Each subcommand prints one line per finding and exits 0 when everything holds, 1 otherwise:

  compose RESOLVED_FILE          docker-compose stack: images pinned, one VictoriaMetrics release, dedup 1ms on
                                 vmstorage/vmselect, bind mounts exist, writer and producer services present, the
                                 writer's settings in a mounted --config file, its stop_grace_period >= drain timeout +
                                 durability window + self-halt margin (the rule of the k8s grace period).
  provisioning FILE...           YAML files parse; Grafana datasource and dashboard provider as compose expects.
  dashboard FILE                 Grafana dashboard: parses, fixed uid, schemaVersion >= 39, ${datasource} variable,
                                 every panel described and querying through ${datasource}, metric names of the meter
                                 catalogue (read from the sources), the JVM binders' or vminsert's only.
  promql FILE VM_URL             every query of the dashboard is accepted by a running VictoriaMetrics.
  k8s NAME FILE [--versions ..]  kustomize output: strict schema validation (kubernetes-validate; VMPodScrape against
                                 scripts/schemas), and the rules of the deployment (replicas, probes, the settings in
                                 a ConfigMap's YAML file passed as `run --config`, no secret in a ConfigMap, grace
                                 period >= drain timeout + durability window + self-halt margin).
  rules K8S_FILE... --out F [--tool T]
                                 alert rules (VMRule, PrometheusRule): the same groups everywhere, metrics of the
                                 meter catalogue (read from the sources), a
                                 summary and severity each; accepted by promtool check rules and vmalert -dryRun.
  flags COMPOSE K8S_FILE... --java JAVA --jar JAR
                                 every flag / TSDB_WRITER_* variable / key of a --config YAML file used by compose and
                                 k8s exists in `tsdb-writer run --help` / `produce --help` (a key may sit under a
                                 --help heading, as `run --config` takes it); no TSDB_WRITER_* variable on a service
                                 that does not run `run` (the other commands ignore them).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
DASHBOARD_UID = "tsdb-writer-efficiency"
DATASOURCE_REF = "${datasource}"
ENV_PREFIX = "TSDB_WRITER_"

# Metric names the dashboard may use besides the writer's own (the meter catalogue, read from the sources:
# catalogue_metrics): the JVM/process binders' and vminsert's insert concurrency. A name outside them is a typo or a
# metric nobody exports.
OTHER_METRICS = {
    "jvm_memory_used_bytes", "jvm_gc_pause_seconds_sum", "jvm_gc_pause_seconds_count", "jvm_gc_pause_seconds_max",
    "process_cpu_usage", "system_cpu_count",
    "vm_concurrent_insert_current", "vm_concurrent_insert_capacity",
    "vm_new_timeseries_created_total",
}
# What the issue asks the dashboard to show, as the metric each subject needs.
REQUIRED_METRICS = {
    "samples expected": "tsdbwriter_expected_samples_per_second",
    "samples written": "tsdbwriter_samples_written_total",
    "efficiency": "tsdbwriter_efficiency_ratio",
    "consumer lag": "tsdbwriter_consumer_lag_records",
    "write latency": "tsdbwriter_write_latency_seconds_bucket",
    "write permits in use": "tsdbwriter_write_permits_in_use",
    "write permits capacity": "tsdbwriter_write_permits_capacity",
    "vminsert concurrent inserts": "vm_concurrent_insert_current",
    "what limits throughput now": "tsdbwriter_limited_by",
    "replay pass": "tsdbwriter_replay_pass",
    "set rate": "tsdbwriter_rate_set_samples_per_second",
    "series churn": "tsdbwriter_new_series_total",
    "ingest delay": "tsdbwriter_ingest_delay_seconds_bucket",
    "vminsert insert capacity": "vm_concurrent_insert_capacity",
    "retries and failures by status": "tsdbwriter_write_requests_total",
    "retries": "tsdbwriter_write_retries_total",
    "write faults by endpoint and class": "tsdbwriter_write_faults_total",
    "acknowledged vs stored (commit lag)": "tsdbwriter_records_awaiting_durability",
    "TSDB restarts": "tsdbwriter_tsdb_restarts_total",
    "decode errors": "tsdbwriter_decode_errors_total",
    "dead-lettered samples": "tsdbwriter_samples_dead_lettered_total",
    "JVM heap": "jvm_memory_used_bytes",
    "GC": "jvm_gc_pause_seconds_sum",
    "CPU": "process_cpu_usage",
}
PROMQL_WORDS = {
    "sum", "min", "max", "avg", "count", "rate", "irate", "increase", "histogram_quantile", "by", "without", "on",
    "ignoring", "group_left", "group_right", "and", "or", "unless", "offset", "bool", "deriv", "delta", "abs",
    "clamp_min", "clamp_max", "label_values", "topk", "bottomk", "quantile", "vector", "scalar", "time",
    "avg_over_time", "max_over_time", "min_over_time", "sum_over_time", "le", "inf", "nan",
}


def load_yaml_docs(path):
    import yaml  # from the venv (kubernetes-validate depends on PyYAML)
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]


# -------------------------------------------------------------------------------------------------- config files

CONFIG_FLAG = "--config"
# A setting whose name says it holds a secret itself (not a file of one): it belongs in a Secret, never a ConfigMap.
SECRET_KEY = re.compile(r"password|token|secret")
# A URL with a password in its userinfo (user:password@host).
URL_WITH_PASSWORD = re.compile(r"://[^/@\s:]+:[^/@\s]+@")


def config_arg(args):
    """The file `--config FILE` / `--config=FILE` names in a command's argument list, or None."""
    args = [str(a) for a in args or []]
    for i, a in enumerate(args):
        if a == CONFIG_FLAG and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(CONFIG_FLAG + "="):
            return a[len(CONFIG_FLAG) + 1:]
    return None


def setting_text(value):
    """A --config value as the flag's text: a list joined by commas (the split of the writer's list flags)."""
    if isinstance(value, list):
        return ",".join(setting_text(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def config_settings(text, flags=None):
    """The settings of a `--config` YAML file as [(heading or None, key, value text)]: keys at the top, or one level
    down under a --help heading (as the writer's ConfigFile reads them). A mapping under a key that is not a flag is a
    heading; without `flags` every mapping is taken for one. Raises ValueError when the text is not a YAML mapping."""
    import yaml
    doc = yaml.safe_load(text)
    if doc is None:
        return []
    if not isinstance(doc, dict):
        raise ValueError("not a mapping of flag names to values")
    out = []
    for k, v in doc.items():
        if isinstance(v, dict) and (flags is None or str(k) not in flags):
            for kk, vv in v.items():
                out.append((str(k), str(kk), setting_text(vv)))
        else:
            out.append((None, str(k), setting_text(v)))
    return out


def settings_as_env(settings):
    """Settings as the TSDB_WRITER_* variables the same flags have (what the grace and URL rules read)."""
    return {ENV_PREFIX + k.upper().replace("-", "_"): v for _, k, v in settings}


def secret_problems(where, settings):
    """A password or token in the settings themselves (they live in a ConfigMap or a file in the repository)."""
    out = []
    for _, k, v in settings:
        if SECRET_KEY.search(k) and not k.endswith("-file"):
            out.append(f"{where}: '{k}' holds a secret: put it in a Secret file and name it with the *-file setting")
        if URL_WITH_PASSWORD.search(v):
            out.append(f"{where}: '{k}' has a URL with a password in it: use vm-basic-auth-password-file")
    return out


def help_headings(help_text):
    """The keys a --config file may nest settings under: the --help headings, lower case with dashes."""
    keys = set()
    for line in help_text.splitlines():
        m = re.fullmatch(r"([A-Z][^:]*?)(?: \(details: [^)]*\))?:", line.rstrip())
        if m and m.group(1) not in ("Usage", "Help", "Exit codes"):
            keys.add(re.sub(r"[^a-z0-9]+", "-", m.group(1).lower()).strip("-"))
    return keys


def compose_config_file(svc, base_dir):
    """(host path, container path) of the --config file a compose service runs with (a bind mount), or (None, path);
    (None, None) without --config."""
    cmd = svc.get("command")
    inside = config_arg(cmd if isinstance(cmd, list) else str(cmd or "").split())
    if inside is None:
        return None, None
    for vol in svc.get("volumes") or []:
        if isinstance(vol, dict):
            src, dst = vol.get("source"), vol.get("target")
        else:
            parts = str(vol).split(":")
            src, dst = parts[0], parts[1] if len(parts) > 1 else None
        if dst == inside or (dst and inside.startswith(dst.rstrip("/") + "/")):
            host = os.path.join(src, os.path.relpath(inside, dst)) if dst != inside else src
            return os.path.normpath(os.path.join(base_dir, host)), inside
    return None, inside


# ------------------------------------------------------------------------------------------------------- compose

def check_compose(path):
    """Rules of the compose stack on `docker-compose config` output (variables resolved, paths absolute)."""
    import yaml
    with open(path) as f:
        compose = yaml.safe_load(f)
    services = compose.get("services") or {}
    problems = []
    vm_tags = {}
    for name, svc in services.items():
        image = str(svc.get("image", ""))
        if "build" in svc:
            continue
        repo, _, tag = image.rpartition(":")
        if not repo or "/" in tag or tag in ("", "latest"):
            problems.append(f"{name}: image {image!r} is not pinned to a tag")
        if repo.startswith("victoriametrics/"):
            vm_tags[name] = tag.removesuffix("-cluster")
            if repo.split("/")[1] in ("vmstorage", "vminsert", "vmselect") and not tag.endswith("-cluster"):
                problems.append(f"{name}: {image} is not a -cluster image")
        for vol in svc.get("volumes") or []:
            src = vol.get("source") if isinstance(vol, dict) else str(vol).split(":")[0]
            kind = vol.get("type") if isinstance(vol, dict) else ("bind" if src.startswith(("/", ".")) else "volume")
            if kind == "bind" and not os.path.exists(src):
                problems.append(f"{name}: bind mount source {src} does not exist")
    if len(set(vm_tags.values())) > 1:
        problems.append(f"VictoriaMetrics components on different releases: {vm_tags}")
    for name in services:
        if name.startswith(("vmstorage", "vmselect")):
            cmd = as_text(services[name].get("command"))
            if "-dedup.minScrapeInterval=1ms" not in cmd:
                problems.append(f"{name}: no -dedup.minScrapeInterval=1ms")
    kinds = {n: str(s.get("image", "")).split(":")[0].split("/")[-1] for n, s in services.items()}
    for needed in ("kafka", "vmstorage", "vminsert", "vmselect", "vmagent", "grafana"):
        if needed not in kinds.values():
            problems.append(f"no {needed} service")
    if sum(1 for k in kinds.values() if k == "vmstorage") < 2:
        problems.append("fewer than two vmstorage services")
    writers = dict(writer_services(compose))
    producers = [n for n, s in writers.items() if re.search(r"\bproduce\b", as_text(s.get("command")))]
    runners = [n for n in writers if n not in producers]
    if not producers:
        problems.append("no producer service running `tsdb-writer produce`")
    if not runners:
        problems.append("no writer service running `tsdb-writer run`")
    graces = []
    for n in runners:
        env = writers[n].get("environment") or {}
        if not isinstance(env, dict):
            env = dict(e.split("=", 1) if "=" in e else (e, "") for e in env)
        for var in ("TIME_MULTIPLIER", "INSTANCE_MULTIPLIER", "PARALLELISM"):
            if ENV_PREFIX + var not in env:
                problems.append(f"{n}: {ENV_PREFIX}{var} not set by the environment")
        host, inside = compose_config_file(writers[n], os.path.dirname(os.path.abspath(path)))
        if inside is None:
            problems.append(f"{n}: no --config file: the writer's settings belong in a mounted writer.yaml")
            continue
        if host is None or not os.path.isfile(host):
            problems.append(f"{n}: --config {inside} is not a bind-mounted file")
            continue
        with open(host) as fh:
            try:
                settings = config_settings(fh.read())
            except (ValueError, yaml.YAMLError) as e:
                problems.append(f"{n}: --config {host}: {e}")
                continue
        problems += secret_problems(f"{n}: {host}", settings)
        values = settings_as_env(settings)
        values.update({k: str(v) for k, v in env.items() if k.startswith(ENV_PREFIX)})  # a variable wins over the file
        need, why = grace_needed(values, writer_constants())
        grace = parse_duration_seconds(writers[n].get("stop_grace_period", "10s"))
        if need is None:
            problems.append(f"{n}: {why}")
        elif grace is None or grace < need:
            problems.append(f"{n}: stop_grace_period {writers[n].get('stop_grace_period', '10s (default)')} is below {why}")
        else:
            graces.append(f"{n} stop_grace_period {grace:g}s >= {why}")
    for pr in problems:
        print(pr)
    if not problems:
        print(f"{len(services)} services; images pinned; VictoriaMetrics {sorted(set(vm_tags.values()))}; "
              f"dedup 1ms on vmstorage/vmselect; writer {runners}, producer {producers}; {'; '.join(graces)}")
    return 1 if problems else 0


# -------------------------------------------------------------------------------------------------- provisioning

def check_provisioning(files):
    """The vmagent scrape config and Grafana provisioning files parse; the datasource is the one the issue names."""
    import yaml
    for f in files:
        with open(f) as fh:
            yaml.safe_load(fh)
    problems = []
    with open(os.path.join(HERE, "..", "grafana", "provisioning", "datasources", "victoriametrics.yml")) as fh:
        ds = yaml.safe_load(fh)["datasources"][0]
    if ds.get("type") != "prometheus":
        problems.append(f"datasource type {ds.get('type')!r}, expected prometheus")
    if ds.get("url") != "http://vmselect:8481/select/0/prometheus":
        problems.append(f"datasource url {ds.get('url')!r}, expected http://vmselect:8481/select/0/prometheus")
    if not ds.get("uid"):
        problems.append("datasource has no fixed uid")
    with open(os.path.join(HERE, "..", "grafana", "provisioning", "dashboards", "tsdb-writer.yml")) as fh:
        prov = yaml.safe_load(fh)["providers"][0]
    if prov.get("options", {}).get("path") != "/var/lib/grafana/dashboards":
        problems.append(f"dashboard provider path {prov.get('options', {}).get('path')!r} is not where compose mounts grafana/dashboards")
    for pr in problems:
        print(pr)
    if not problems:
        print(f"{len(files)} files parse; datasource uid {ds['uid']} -> {ds['url']}")
    return 1 if problems else 0


# ----------------------------------------------------------------------------------------------------- dashboard

def panels_of(dashboard):
    for p in dashboard.get("panels", []):
        yield p
        for inner in p.get("panels", []) or []:  # collapsed rows keep their panels inside
            yield inner


def metric_names(expr):
    # Drop label matchers, strings and template variables, then take identifiers that are not PromQL words and
    # are not followed by '(' (functions).
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    e = re.sub(r"\{[^}]*\}", "", e)
    e = re.sub(r"\[[^\]]*\]", "", e)
    e = re.sub(r"\$\{?\w+\}?", "", e)
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", e)
    names = set()
    for m in re.finditer(r"[a-zA-Z_:][a-zA-Z0-9_:]*", e):
        word = m.group(0)
        rest = e[m.end():].lstrip()
        if rest.startswith("("):
            continue
        if word.lower() in PROMQL_WORDS or re.fullmatch(r"[0-9.e]+", word):
            continue
        names.add(word)
    return names


def check_dashboard(path):
    problems = []
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        print(f"dashboard does not parse: {e}")
        return 1
    if d.get("uid") != DASHBOARD_UID:
        problems.append(f"uid is {d.get('uid')!r}, expected the fixed {DASHBOARD_UID!r}")
    if not isinstance(d.get("schemaVersion"), int) or d["schemaVersion"] < 39:
        problems.append(f"schemaVersion {d.get('schemaVersion')!r} is below 39")
    variables = {v.get("name"): v for v in d.get("templating", {}).get("list", [])}
    ds_var = variables.get("datasource")
    if not ds_var or ds_var.get("type") != "datasource" or ds_var.get("query") != "prometheus":
        problems.append("no template variable 'datasource' of type datasource/prometheus")
    for name, v in variables.items():
        if v.get("type") == "query" and (v.get("datasource") or {}).get("uid") != DATASOURCE_REF:
            problems.append(f"variable {name!r} does not query through {DATASOURCE_REF}")
    ids, used = set(), set()
    known = catalogue_metrics() | OTHER_METRICS
    panels = [p for p in panels_of(d) if p.get("type") != "row"]
    if not panels:
        problems.append("no panels")
    for p in panels:
        title = p.get("title") or f"panel id {p.get('id')}"
        if p.get("id") in ids:
            problems.append(f"{title}: duplicate panel id {p.get('id')}")
        ids.add(p.get("id"))
        if not (p.get("description") or "").strip():
            problems.append(f"{title}: no description")
        if (p.get("datasource") or {}).get("uid") != DATASOURCE_REF:
            problems.append(f"{title}: panel datasource is not {DATASOURCE_REF}")
        targets = p.get("targets") or []
        if not targets:
            problems.append(f"{title}: no targets")
        for t in targets:
            if (t.get("datasource") or {}).get("uid") != DATASOURCE_REF:
                problems.append(f"{title} [{t.get('refId')}]: target datasource is not {DATASOURCE_REF}")
            expr = t.get("expr") or ""
            if not expr.strip():
                problems.append(f"{title} [{t.get('refId')}]: empty expr")
            names = metric_names(expr)
            unknown = names - known
            if unknown:
                problems.append(f"{title} [{t.get('refId')}]: unknown metric(s) {sorted(unknown)}")
            used |= names
    for subject, metric in REQUIRED_METRICS.items():
        if metric not in used:
            problems.append(f"nothing shows {subject} ({metric})")
    for pr in problems:
        print(pr)
    if not problems:
        print(f"{len(panels)} panels, uid {d['uid']}, schemaVersion {d['schemaVersion']}, "
              f"{len(used)} metric names, all known")
    return 1 if problems else 0


def check_promql(path, vm_url):
    """Sends every dashboard query, template variables filled in, to VictoriaMetrics' query API."""
    with open(path) as f:
        d = json.load(f)
    subst = {"$__rate_interval": "1m", "$__range": "30m", "$__interval": "15s"}
    failures, count = 0, 0
    for p in panels_of(d):
        for t in p.get("targets") or []:
            expr = t.get("expr") or ""
            for k, v in subst.items():
                expr = expr.replace(k, v)
            expr = re.sub(r"\$\{?(\w+)\}?", ".*", expr)
            url = vm_url.rstrip("/") + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
            count += 1
            try:
                with urllib.request.urlopen(url, timeout=10) as r:
                    status = json.load(r).get("status")
            except urllib.error.HTTPError as e:
                status = f"HTTP {e.code}: {e.read().decode(errors='replace')[:300]}"
            except OSError as e:
                status = f"request failed: {e}"
            if status != "success":
                failures += 1
                print(f"{p.get('title')} [{t.get('refId')}]: {status}")
    if not failures:
        print(f"{count} queries accepted")
    return 1 if failures else 0


# ----------------------------------------------------------------------------------------------------------- k8s

def parse_duration_seconds(text):
    """Seconds of "30s", "500ms", "2m", a bare number of seconds, or a compound one as docker-compose prints them
    ("2m0s"); None when unreadable."""
    text = str(text).strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return float(text)
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[u] for n, u in parts)


def validate_crd(doc, schema_dir):
    import jsonschema
    api_version, kind = doc.get("apiVersion", ""), doc.get("kind", "")
    schema_file = os.path.join(schema_dir, f"{kind.lower()}-{api_version.split('/')[-1]}.schema.json")
    if not os.path.exists(schema_file):
        return [f"{kind} {api_version}: no schema in {schema_dir} (custom resource not validated)"]
    with open(schema_file) as f:
        schema = json.load(f)
    v = jsonschema.Draft7Validator(schema)
    return [f"{kind}/{doc.get('metadata', {}).get('name')}: {'.'.join(map(str, e.absolute_path)) or '<root>'}: "
            f"{e.message}" for e in sorted(v.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))]


ROOT = os.path.dirname(HERE)


def source_constant(path, pattern, what):
    """The first group of `pattern` in the source file `path` (relative to the repository), as a number."""
    with open(os.path.join(ROOT, path)) as f:
        m = re.search(pattern, f.read())
    if not m:
        raise SystemExit(f"{path}: cannot find {what} (pattern {pattern!r}); update scripts/check_deploy.py")
    return float(m.group(1).replace("_", ""))


def writer_constants():
    """What the grace period must cover, read from the writer's sources so that the check follows the code: the
    default --drain-timeout, the window of a TSDB whose persistence is unknown (the largest auto window at the TSDBs'
    defaults), and the self-halt margin after the drain timeout (a writer whose thread died halts itself)."""
    return {
        "drain": source_constant("src/main/java/io/tsdbwriter/cli/RunCommand.java",
                                 r'names = "--drain-timeout",\s*defaultValue = "(\d+)s"', "the default --drain-timeout"),
        "unknown_window": source_constant("src/main/java/io/tsdbwriter/durability/DurabilityNeed.java",
                                          r"UNKNOWN = Duration\.ofSeconds\((\d+)\)", "DurabilityNeed.UNKNOWN"),
        "halt_margin": source_constant("src/main/java/io/tsdbwriter/app/WriterService.java",
                                       r"drainTimeout\(\)\.toMillis\(\)\s*\+\s*([\d_]+)", "the self-halt margin") / 1000,
    }


def grace_needed(env, constants):
    """(seconds, explanation) the pod's terminationGracePeriodSeconds (compose's stop_grace_period) must reach: drain
    timeout + durability window + self-halt margin, from the writer's settings as TSDB_WRITER_* names (its --config
    file, then its variables); (None, problem) when a value is unreadable.
    An auto window is taken at its largest at the TSDBs' defaults (an unknown TSDB's, which --tsdb-metrics-url none
    also gives)."""
    drain_text = env.get(ENV_PREFIX + "DRAIN_TIMEOUT")
    drain = constants["drain"] if drain_text is None else parse_duration_seconds(drain_text)
    if drain is None:
        return None, f"cannot read drain-timeout {drain_text!r}"
    window_text = env.get(ENV_PREFIX + "DURABILITY_WINDOW", "auto")
    window = constants["unknown_window"] if window_text == "auto" else parse_duration_seconds(window_text)
    if window is None:
        return None, f"cannot read durability-window {window_text!r}"
    margin = constants["halt_margin"]
    return drain + window + margin, (f"drain {drain:g}s + window {window:g}s ({window_text}) + self-halt margin "
                                     f"{margin:g}s = {drain + window + margin:g}s")


def check_k8s(name, path, versions, schema_dir, expect_vm_url, expect_tsdb_metrics_url=None):
    import kubernetes_validate
    problems = []
    docs = load_yaml_docs(path)
    kinds, crds = {}, set()
    for doc in docs:
        kinds.setdefault(doc.get("kind"), []).append(doc)
        label = f"{doc.get('kind')}/{doc.get('metadata', {}).get('name')}"
        for version in versions:
            try:
                kubernetes_validate.validate(doc, version, strict=True)
            except kubernetes_validate.ValidationError as e:
                problems.append(f"{label} (k8s {version}): {'.'.join(map(str, e.path)) or '<root>'}: {e.message}")
            except kubernetes_validate.SchemaNotFoundError:
                # A custom resource (kubernetes-validate ships the built-in kinds only): our own strict schema.
                problems += validate_crd(doc, schema_dir)
                crds.add(label)
                break

    # The deployment rules of the issue.
    # The writer workload: a StatefulSet (stable pod names = static group membership) or a Deployment.
    deployments = kinds.get("Deployment", []) + kinds.get("StatefulSet", [])
    configmaps = kinds.get("ConfigMap", [])
    if len(deployments) != 1:
        problems.append(f"expected one writer workload (StatefulSet or Deployment), found {len(deployments)}")
    for kind in ("ConfigMap", "Service", "PodDisruptionBudget"):
        if not kinds.get(kind):
            problems.append(f"no {kind}")
    # Scraped and alerted on by one operator: VictoriaMetrics' (the base) or Prometheus' (overlays/prometheus-operator).
    for scrape, rule in (("VMPodScrape", "VMRule"), ("PodMonitor", "PrometheusRule")):
        if kinds.get(scrape) and not kinds.get(rule):
            problems.append(f"{scrape} without the alert rules ({rule})")
    if not kinds.get("VMPodScrape") and not kinds.get("PodMonitor"):
        problems.append("no VMPodScrape or PodMonitor: nothing scrapes the writers")
    env = {}
    cm_by_name = {cm["metadata"]["name"]: cm for cm in configmaps}
    for cm in configmaps:
        for k, v in (cm.get("data") or {}).items():
            if SECRET_KEY.search(k.lower()) and not k.lower().endswith(("_file", "-file")):
                problems.append(f"ConfigMap {cm['metadata']['name']}: {k} looks like a secret: it belongs in a Secret")
    for dep in deployments:
        spec = dep["spec"]
        pod = spec["template"]["spec"]
        if spec.get("replicas") != 3:
            problems.append(f"{dep['kind']} replicas {spec.get('replicas')}, expected 3")
        containers = pod.get("containers", [])
        c = containers[0] if containers else {}
        res = c.get("resources", {})
        for part in ("requests", "limits"):
            for r in ("cpu", "memory"):
                if r not in res.get(part, {}):
                    problems.append(f"container has no {part}.{r}")
        ports = {p.get("name"): p.get("containerPort") for p in c.get("ports", [])}
        for probe, path_ in (("livenessProbe", "/health/live"), ("readinessProbe", "/health/ready")):
            got = (c.get(probe) or {}).get("httpGet", {}).get("path")
            if got != path_:
                problems.append(f"{probe} path is {got!r}, expected {path_}")
        if pod.get("enableServiceLinks", True) is not False:
            problems.append("enableServiceLinks is not false: a Service's links (e.g. TSDB_WRITER_METRICS_PORT=tcp://…) "
                            "would reach the writer as TSDB_WRITER_* flag defaults")
        # The settings: the --config file of the container's args (a ConfigMap's key, mounted), then its variables.
        config = config_arg(as_text(c.get("command")).split() + [str(a) for a in c.get("args") or []])
        if config is None:
            problems.append("container args pass no --config: the writer's settings belong in a ConfigMap's YAML file")
        else:
            mounts = {m["name"]: m for m in c.get("volumeMounts", [])}
            found = None
            for vol in pod.get("volumes", []):
                m = mounts.get(vol.get("name"))
                if not m or "configMap" not in vol:
                    continue
                mount = m["mountPath"].rstrip("/")
                key = (m.get("subPath") if config == mount else
                       config[len(mount) + 1:] if config.startswith(mount + "/") else None)
                cm = cm_by_name.get(vol["configMap"].get("name"))
                if key and cm and key in (cm.get("data") or {}):
                    found = (cm["metadata"]["name"], key, cm["data"][key])
            if found is None:
                problems.append(f"--config {config} is no key of a ConfigMap mounted into the container")
            else:
                try:
                    settings = config_settings(found[2])
                except Exception as e:  # ValueError, yaml.YAMLError
                    problems.append(f"ConfigMap {found[0]} key {found[1]}: {e}")
                    settings = []
                problems += secret_problems(f"ConfigMap {found[0]} key {found[1]}", settings)
                env.update(settings_as_env(settings))
        for ref in c.get("envFrom", []):  # variables win over the file
            env.update((cm_by_name.get(ref.get("configMapRef", {}).get("name")) or {}).get("data") or {})
        for e in c.get("env", []) or []:
            if e.get("name", "").startswith(ENV_PREFIX):
                if SECRET_KEY.search(e["name"].lower()) and not e["name"].endswith("_FILE") and "value" in e:
                    problems.append(f"env {e['name']} holds a secret as a literal value: use a Secret file")
                if "value" in e:
                    env[e["name"]] = str(e["value"])
        metrics_port = int(env.get(ENV_PREFIX + "METRICS_PORT", 9464))
        if ports.get("metrics") != metrics_port:
            problems.append(f"container port 'metrics' is {ports.get('metrics')}, the writer listens on {metrics_port}")
        grace = pod.get("terminationGracePeriodSeconds", 30)
        need, why = grace_needed(env, writer_constants())
        if need is None:
            problems.append(why)
        elif not grace >= need:
            problems.append(f"terminationGracePeriodSeconds {grace} is below {why}")
    for pdb in kinds.get("PodDisruptionBudget", []):
        dep_labels = deployments[0]["spec"]["template"]["metadata"].get("labels", {}) if deployments else {}
        sel = pdb["spec"].get("selector", {}).get("matchLabels", {})
        if not sel or any(dep_labels.get(k) != v for k, v in sel.items()):
            problems.append(f"PodDisruptionBudget selector {sel} does not select the writer pods")
    for ps in kinds.get("VMPodScrape", []) + kinds.get("PodMonitor", []):
        dep_labels = deployments[0]["spec"]["template"]["metadata"].get("labels", {}) if deployments else {}
        sel = ps["spec"].get("selector", {}).get("matchLabels", {})
        if not sel or any(dep_labels.get(k) != v for k, v in sel.items()):
            problems.append(f"{ps['kind']} selector {sel} does not select the writer pods")
        ports = [e.get("port") for e in ps["spec"].get("podMetricsEndpoints", [])]
        if "metrics" not in ports:
            problems.append(f"{ps['kind']} scrapes ports {ports}, not 'metrics'")
    if expect_vm_url:
        url = env.get(ENV_PREFIX + "VM_URL", "")
        if not re.fullmatch(expect_vm_url, url):
            problems.append(f"vm-url {url!r} does not match {expect_vm_url}")
    if expect_tsdb_metrics_url:
        # vminsert alone: without its vmstorage pages the window is an unknown TSDB's, and no restart is seen.
        pages = [u for u in env.get(ENV_PREFIX + "TSDB_METRICS_URL", "").split(",") if u]
        if not pages:
            problems.append("no tsdb-metrics-url: the vmstorage pages are not read (window unknown, restarts unseen)")
        for u in pages:
            if not re.fullmatch(expect_tsdb_metrics_url, u):
                problems.append(f"tsdb-metrics-url page {u!r} does not match {expect_tsdb_metrics_url}")

    for pr in problems:
        print(pr)
    if not problems:
        print(f"{name}: {len(docs)} objects ({', '.join(sorted(k for k in kinds))}) valid against Kubernetes "
              f"{', '.join(versions)} (strict), custom resources {sorted(crds)} against scripts/schemas; "
              f"grace {grace}s >= {why}")
    return 1 if problems else 0


# --------------------------------------------------------------------------------------------------------- rules

# Metric names alert rules may use that the writer does not export: the scrape's own `up` and kube-state-metrics'
# pod readiness (the writer's readiness is its /health/ready, which the kubelet probes). Every tsdbwriter_* name must
# be in the meter catalogue (catalogue_metrics).
RULE_EXTERNAL_METRICS = {"up", "kube_pod_container_status_ready"}
RULE_KINDS = ("VMRule", "PrometheusRule")
METER_SOURCES = "src/main/java/io/tsdbwriter"


def catalogue_metrics():
    """The Prometheus names of the writer's meters, from its sources: WriterMeters' Counter/FunctionCounter/Gauge/Timer
    builders under PREFIX, every `meters.gauge("name", ...)` and a counter named by a NAME constant, named as Micrometer's Prometheus registry names them
    (dots become underscores, a base unit is appended, counters get _total, timers _seconds_{count,sum,max,bucket})."""
    names = set()
    for dirpath, _, files in os.walk(os.path.join(ROOT, METER_SOURCES)):
        for fn in files:
            if not fn.endswith(".java"):
                continue
            with open(os.path.join(dirpath, fn)) as f:
                text = f.read()
            for m in re.finditer(r'(FunctionCounter|Counter|Gauge|Timer)\.builder\(\s*PREFIX\s*\+\s*"([a-z.]+)"', text):
                kind, name = m.group(1), "tsdbwriter_" + m.group(2).replace(".", "_")
                statement = text[m.end():text.find(".register(", m.end())]
                unit = re.search(r'\.baseUnit\("([a-z.]+)"\)', statement)
                suffix = "_" + unit.group(1).replace(".", "_") if unit else ""
                if unit and kind in ("Gauge", "Counter") and not name.endswith(suffix):  # as Micrometer: once
                    name += suffix
                if kind in ("Counter", "FunctionCounter"):
                    names.add(name + "_total")
                elif kind == "Timer":
                    names.update(name + "_seconds" + s for s in ("_count", "_sum", "_max", "_bucket"))
                else:
                    names.add(name)
            for m in re.finditer(r'meters\s*\.gauge\(\s*"([a-z.]+)"', text):
                names.add("tsdbwriter_" + m.group(1).replace(".", "_"))
            # A counter named by a constant: NAME = WriterMeters.PREFIX + "tenant.samples.written", Counter.builder(NAME).
            m = re.search(r'NAME\s*=\s*WriterMeters\.PREFIX\s*\+\s*"([a-z.]+)"', text)
            if m and re.search(r"Counter\.builder\(\s*NAME\s*\)", text):
                names.add("tsdbwriter_" + m.group(1).replace(".", "_") + "_total")
    return names


def check_rules(files, out_file, tools):
    """The alert rules of every built manifest: the same groups in each (VMRule and PrometheusRule), known metric names
    only, every alert with a summary and a severity; then promtool and vmalert (when given) accept them."""
    problems, groups_by_file = [], {}
    for path in files:
        for doc in load_yaml_docs(path):
            if doc.get("kind") in RULE_KINDS:
                groups_by_file[f"{os.path.basename(path)}:{doc['kind']}"] = doc["spec"]["groups"]
    if not groups_by_file:
        print("no VMRule or PrometheusRule in " + ", ".join(files))
        return 1
    (first, groups), *others = groups_by_file.items()
    for name, other in others:
        if other != groups:
            problems.append(f"{name}: rule groups differ from {first}'s (keep k8s/base/vmrule.yaml and "
                            f"k8s/overlays/prometheus-operator/prometheusrule.yaml the same)")
    alerts = 0
    catalogue = catalogue_metrics()
    for g in groups:
        for r in g["rules"]:
            alerts += 1 if "alert" in r else 0
            unknown = metric_names(r["expr"]) - catalogue - RULE_EXTERNAL_METRICS
            if unknown:
                problems.append(f"{r.get('alert', r.get('record'))}: unknown metric(s) {sorted(unknown)}")
            if "alert" in r and ("summary" not in r.get("annotations", {}) or "severity" not in r.get("labels", {})):
                problems.append(f"{r['alert']}: no summary annotation or severity label")
    import yaml
    with open(out_file, "w") as f:
        yaml.safe_dump({"groups": groups}, f, sort_keys=False)
    checked = []
    for tool in tools:
        cmd = [tool, "check", "rules", out_file] if os.path.basename(tool) == "promtool" \
            else [tool, "-dryRun", "-rule=" + out_file]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f"{' '.join(cmd)}: exit {r.returncode}: {(r.stdout + r.stderr).strip()[-600:]}")
        checked.append(os.path.basename(tool))
    for pr in problems:
        print(pr)
    if not problems:
        print(f"{alerts} alerts in {len(groups)} group(s), the same in {len(groups_by_file)} manifests, metrics of the "
              f"meter catalogue ({len(catalogue)} names) or {sorted(RULE_EXTERNAL_METRICS)}; "
              f"accepted by {', '.join(checked) or 'no rule checker (none installed)'}")
    return 1 if problems else 0


# --------------------------------------------------------------------------------------------------------- flags

def flag_for_env(name):
    return "--" + name[len(ENV_PREFIX):].lower().replace("_", "-")


def flags_in(text):
    return set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", text))


def writer_services(compose):
    """Services running the tsdb-writer image: built from this repository or named tsdb-writer."""
    for name, svc in (compose.get("services") or {}).items():
        image = str(svc.get("image", ""))
        if "build" in svc or image.split(":")[0].split("/")[-1] == "tsdb-writer":
            yield name, svc


def as_text(value):
    if value is None:
        return ""
    return value if isinstance(value, str) else " ".join(str(v) for v in value)


def config_usages(where, sub, text, known):
    """(where, subcommand, flag, heading) for every key of a --config file's text; a mapping under a key that is no
    flag of `sub` (known: subcommand -> flags) is a --help heading."""
    try:
        settings = config_settings(text, known.get(sub) if known else None)
    except Exception as e:  # ValueError, yaml.YAMLError
        return [(f"{where}: not a --config file ({e})", sub, "config", None)]
    return [(f"{where} (key {(h + '.') if h else ''}{k})", sub, k, h) for h, k, _ in settings]


def usages(compose_file, k8s_files, known=None):
    """(where, subcommand, flag, heading or None) for every flag, TSDB_WRITER_* variable and --config key the
    deployment files use (known: subcommand -> its flags, to tell a flag's mapping from a heading)."""
    import yaml
    out = []
    with open(compose_file) as f:
        compose = yaml.safe_load(f)
    for name, svc in writer_services(compose):
        text = as_text(svc.get("command"))
        m = re.search(r"(?<![\w/-])(run|produce)(?![\w-])", text)
        sub = m.group(1) if m else "run"  # the image's default command is `run`
        after = text[m.end():] if m else text
        for fl in sorted(flags_in(after)):
            out.append((f"compose service {name} (command)", sub, fl, None))
        host, inside = compose_config_file(svc, os.path.dirname(os.path.abspath(compose_file)))
        if host and os.path.isfile(host):
            with open(host) as fh:
                out += config_usages(f"compose service {name} --config {os.path.relpath(host, ROOT)}", sub, fh.read(),
                                     known)
        elif inside:
            out.append((f"compose service {name}: --config {inside} is not a bind-mounted file", sub, "config", None))
        env = svc.get("environment") or {}
        keys = env.keys() if isinstance(env, dict) else [e.split("=", 1)[0] for e in env]
        for k in sorted(keys):
            if k.startswith(ENV_PREFIX):
                out.append((f"compose service {name} (env {k})", sub, flag_for_env(k)[2:], None))
    for path in k8s_files:
        for doc in load_yaml_docs(path):
            where = f"{os.path.basename(path)} {doc.get('kind')}/{doc.get('metadata', {}).get('name')}"
            if doc.get("kind") == "ConfigMap":
                for k, v in sorted((doc.get("data") or {}).items()):
                    if k.startswith(ENV_PREFIX):
                        out.append((f"{where} ({k})", "run", flag_for_env(k)[2:], None))
                    elif k.endswith((".yaml", ".yml")) and doc["metadata"]["name"].startswith("tsdb-writer-config"):
                        out += config_usages(f"{where} {k}", "run", v, known)
            if doc.get("kind") in ("Deployment", "StatefulSet"):
                for c in doc["spec"]["template"]["spec"].get("containers", []):
                    text = as_text(c.get("command")) + " " + as_text(c.get("args"))
                    for fl in sorted(flags_in(text)):
                        out.append((f"{where} (args)", "run", fl, None))
                    for e in c.get("env", []) or []:
                        if e.get("name", "").startswith(ENV_PREFIX):
                            out.append((f"{where} (env {e['name']})", "run", flag_for_env(e["name"])[2:], None))
    return out


def env_ignored(compose_file):
    """TSDB_WRITER_* variables set on a writer-image service whose command is not `run`: only `run` reads them."""
    import yaml
    with open(compose_file) as f:
        compose = yaml.safe_load(f)
    out = []
    for name, svc in writer_services(compose):
        m = re.search(r"(?<![\w/-])(run|produce)(?![\w-])", as_text(svc.get("command")))
        if m and m.group(1) != "run":
            env = svc.get("environment") or {}
            keys = env.keys() if isinstance(env, dict) else [e.split("=", 1)[0] for e in env]
            out += [f"compose service {name}: {k} is ignored by `tsdb-writer {m.group(1)}` (the variables are run's only)"
                    for k in sorted(keys) if k.startswith(ENV_PREFIX)]
    return out


def help_flags(java, jar, sub):
    """(flags, headings, None) of `sub --help`, or (None, None, the last lines) when it fails."""
    p = subprocess.run([java, "-jar", jar, sub, "--help"], capture_output=True, text=True, timeout=120,
                       env={k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIX)})
    if p.returncode != 0:
        return None, None, (p.stdout + p.stderr).strip().splitlines()[-3:]
    return flags_in(p.stdout + p.stderr), help_headings(p.stdout), None


def check_flags(compose_file, k8s_files, java, jar):
    if not jar:
        uses = usages(compose_file, k8s_files)
        print(f"{len(uses)} flags/variables/config keys found; not verified (no jar)")
        return 0
    known, headings, problems = {}, {}, []
    for sub in sorted({u[1] for u in usages(compose_file, k8s_files)} | {"run"}):
        flags, heads, err = help_flags(java, jar, sub)
        if flags is None:
            problems.append(f"`{os.path.basename(jar)} {sub} --help` failed: {' / '.join(err)}")
        elif not flags - {"help", "version"}:
            problems.append(f"`{os.path.basename(jar)} {sub} --help` lists no options: no `{sub}` command in this jar?")
        else:
            known[sub], headings[sub] = flags, heads
    uses = usages(compose_file, k8s_files, known)
    for where, sub, fl, heading in uses:
        if sub in known and fl not in known[sub]:
            problems.append(f"{where}: --{fl} is not a flag of `tsdb-writer {sub}`")
        if sub in known and heading is not None and heading not in headings[sub]:
            problems.append(f"{where}: '{heading}' is not a heading of `tsdb-writer {sub} --help` "
                            f"({', '.join(sorted(headings[sub]))})")
    problems.extend(env_ignored(compose_file))
    for pr in problems:
        print(pr)
    if not problems:
        by_sub = {}
        for _, sub, fl, _ in uses:
            by_sub.setdefault(sub, set()).add(fl)
        print("; ".join(f"{sub}: {len(f)} distinct flags all in `{sub} --help`" for sub, f in sorted(by_sub.items()))
              + f" ({len(uses)} uses)")
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sp = ap.add_subparsers(dest="cmd", required=True)
    a = sp.add_parser("compose")
    a.add_argument("file")
    a = sp.add_parser("provisioning")
    a.add_argument("files", nargs="+")
    a = sp.add_parser("dashboard")
    a.add_argument("file")
    a = sp.add_parser("promql")
    a.add_argument("file")
    a.add_argument("vm_url")
    a = sp.add_parser("k8s")
    a.add_argument("name")
    a.add_argument("file")
    a.add_argument("--versions", default="1.37")
    a.add_argument("--schemas", default=os.path.join(HERE, "schemas"))
    a.add_argument("--expect-vm-url", default=None, help="regular expression the writer's vm-url must match")
    a.add_argument("--expect-tsdb-metrics-url", default=None,
                   help="regular expression every page of the writer's tsdb-metrics-url must match (at least one page)")
    a = sp.add_parser("rules")
    a.add_argument("files", nargs="+")
    a.add_argument("--out", required=True, help="where to write the groups as a plain rule file")
    a.add_argument("--tool", action="append", default=[], help="promtool or vmalert binary that must accept them")
    a = sp.add_parser("flags")
    a.add_argument("compose")
    a.add_argument("k8s", nargs="*")
    a.add_argument("--java")
    a.add_argument("--jar")
    args = ap.parse_args()
    if args.cmd == "compose":
        return check_compose(args.file)
    if args.cmd == "provisioning":
        return check_provisioning(args.files)
    if args.cmd == "dashboard":
        return check_dashboard(args.file)
    if args.cmd == "promql":
        return check_promql(args.file, args.vm_url)
    if args.cmd == "k8s":
        return check_k8s(args.name, args.file, args.versions.split(","), args.schemas, args.expect_vm_url,
                         args.expect_tsdb_metrics_url)
    if args.cmd == "rules":
        return check_rules(args.files, args.out, args.tool)
    if args.cmd == "flags":
        return check_flags(args.compose, args.k8s, args.java, args.jar)
    return 2


if __name__ == "__main__":
    sys.exit(main())
