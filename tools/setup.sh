#!/usr/bin/env bash
# Installs everything OStore needs on a fresh Debian machine (idempotent; fast when already done):
# Java 17 + Maven for the local Cassandra/Kafka stack, the S3 clients used by the tests,
# the npm packages, and the Cassandra/Kafka jars (resolved by Maven into ~/.cache/ostore/jars).
set -euo pipefail
cd "$(dirname "$0")/.."

need_node="20.19.0"
node_version="$(node -p 'process.versions.node' 2>/dev/null || echo 0)"
if [ "$(printf '%s\n%s\n' "$need_node" "$node_version" | sort -V | head -n1)" != "$need_node" ]; then
  echo "setup: Node.js >= $need_node is required (found $node_version)" >&2
  exit 1
fi

apt_missing=()
[ -x /usr/lib/jvm/java-17-openjdk-amd64/bin/java ] || apt_missing+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || apt_missing+=(maven)
command -v aws >/dev/null 2>&1 || apt_missing+=(awscli)
command -v rclone >/dev/null 2>&1 || apt_missing+=(rclone)
command -v s3cmd >/dev/null 2>&1 || apt_missing+=(s3cmd)
# promtool (deploy specs: alert rules) and prometheus (the deploy observability test).
command -v promtool >/dev/null 2>&1 || apt_missing+=(prometheus)
if [ ${#apt_missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "setup: installing Debian packages: ${apt_missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${apt_missing[@]}" >/dev/null
  else
    echo "setup: please install these Debian packages (as root): ${apt_missing[*]}" >&2
    exit 1
  fi
fi

# npm packages: reinstall only when the lock file changed since the last install. The lock's hash is
# kept beside the packages: comparing the lock with node_modules/.package-lock.json never matched
# (the lock also lists other platforms' optional packages), so every run reinstalled.
lock_hash="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -d node_modules ] || [ "$(cat node_modules/.ostore-lock.sha256 2>/dev/null)" != "$lock_hash" ]; then
  npm ci --no-audit --no-fund
  echo "$lock_hash" > node_modules/.ostore-lock.sha256
fi

# kubectl (kustomize builds of deploy/k8s) comes with the machine; kubeconform and the Kubernetes
# and Prometheus Operator schemas go to ~/.cache/ostore/validators.
command -v kubectl >/dev/null 2>&1 || echo "setup: kubectl is missing: the deploy specs need it (kubectl kustomize)" >&2
bash deploy/tools/install-validators.sh

node tools/stack/stack.mjs resolve
