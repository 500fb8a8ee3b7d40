#!/usr/bin/env bash
# Writes the dev overlay's generated secrets (gitignored); keeps an existing file.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p secrets
if [ ! -s secrets/admin.env ]; then
  umask 077
  printf 'ADMIN_TOKEN=%s\n' "$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')" > secrets/admin.env
  # the SSE-S3 master key (id k1); rotate by putting a new id first: k2=<new>,k1=<old>
  printf 'S3_SSE_MASTER_KEYS=k1=%s\n' "$(head -c32 /dev/urandom | base64 | tr -d '\n')" >> secrets/admin.env
  echo "wrote $(pwd)/secrets/admin.env"
fi
