#!/usr/bin/env bash
# Installs the offline validators the deploy specs use, into ~/.cache/ostore/validators
# (outside the repo; idempotent, fast when done):
#   bin/kubeconform               built from the Go module proxy
#   k8s/v<K8S>-local-strict/      Kubernetes JSON schemas from the PyPI package kubernetes-validate
#   crds/<group>/<kind>_<ver>.json Prometheus Operator CRD schemas (Go module prometheus-operator)
# promtool comes from Debian's `prometheus` package (tools/setup.sh installs it).
set -euo pipefail
KUBECONFORM_VERSION=v0.6.7
SCHEMAS_PACKAGE=kubernetes-validate==1.37.0
K8S_VERSION=1.32.0
PROMETHEUS_OPERATOR_VERSION=v0.80.1
dest="${OSTORE_VALIDATORS:-$HOME/.cache/ostore/validators}"
mkdir -p "$dest/bin"

if [ ! -x "$dest/bin/kubeconform" ]; then
  echo "install-validators: building kubeconform $KUBECONFORM_VERSION"
  (cd /tmp && GOBIN="$dest/bin" GOFLAGS=-mod=mod go install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION")
fi

k8s_dir="$dest/k8s/v$K8S_VERSION-local-strict"
if [ ! -f "$k8s_dir/_definitions.json" ]; then
  echo "install-validators: Kubernetes $K8S_VERSION schemas from $SCHEMAS_PACKAGE"
  tmp="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps -d "$tmp" "$SCHEMAS_PACKAGE"
  # kubeconform resolves $ref by file: drop the schemas' https $id and make the refs relative.
  python3 - "$tmp"/*.whl "$dest/k8s" "v$K8S_VERSION-local-strict" <<'PY'
import json, os, sys, zipfile
wheel, out, version = sys.argv[1:]
prefix = f"kubernetes_validate/kubernetes-json-schema/{version}/"
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.startswith(prefix) and n.endswith(".json")]
    if not names:
        sys.exit(f"no {version} schemas in {wheel}")
    os.makedirs(os.path.join(out, version), exist_ok=True)
    for n in names:
        schema = json.loads(z.read(n))
        schema.pop("$id", None)
        text = json.dumps(schema).replace('"/api/_definitions.json#', '"_definitions.json#')
        with open(os.path.join(out, version, os.path.basename(n)), "w") as f:
            f.write(text)
PY
  rm -rf "$tmp"
fi

crd_dir="$dest/crds/monitoring.coreos.com"
if [ ! -f "$crd_dir/servicemonitor_v1.json" ]; then
  echo "install-validators: Prometheus Operator $PROMETHEUS_OPERATOR_VERSION CRD schemas"
  modcache="$dest/gomod"
  module_dir="$(cd /tmp && GOFLAGS=-mod=mod GOMODCACHE="$modcache" go mod download -json \
    "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')"
  # openAPIV3Schema -> a strict JSON schema (objects with declared properties allow no others).
  python3 - "$module_dir/jsonnet/prometheus-operator" "$dest/crds" <<'PY'
import json, os, sys
src, out = sys.argv[1:]
def strict(node):
    if isinstance(node, dict):
        if "properties" in node and "additionalProperties" not in node and not node.get("x-kubernetes-preserve-unknown-fields"):
            node["additionalProperties"] = False
        for v in node.values():
            strict(v)
    elif isinstance(node, list):
        for v in node:
            strict(v)
    return node
for name in ("servicemonitors-crd.json", "prometheusrules-crd.json", "podmonitors-crd.json"):
    crd = json.load(open(os.path.join(src, name)))
    group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"].lower()
    os.makedirs(os.path.join(out, group), exist_ok=True)
    for v in crd["spec"]["versions"]:
        schema = strict(v["schema"]["openAPIV3Schema"])
        schema["properties"]["apiVersion"] = {"type": "string", "enum": [f"{group}/{v['name']}"]}
        schema["properties"]["kind"] = {"type": "string", "enum": [crd["spec"]["names"]["kind"]]}
        with open(os.path.join(out, group, f"{kind}_{v['name']}.json"), "w") as f:
            json.dump(schema, f)
PY
  chmod -R u+w "$modcache" && rm -rf "$modcache"
fi
