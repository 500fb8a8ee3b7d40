#!/usr/bin/env bash
# Runs the ceph/s3-tests conformance subset against a gateway this script starts (see README.md).
#   tools/conformance/run.sh [pytest selection args...]
# The selected tests are run in chunks of $CONFORMANCE_CHUNK, $CONFORMANCE_JOBS at a time, each
# with its own junit-<n>.xml in $CONFORMANCE_OUT: a chunk whose junit exists is not run again, so
# an interrupted run resumes where it stopped and no finished result is lost.
# Needs: a Cassandra + Kafka stack (CASSANDRA_PORT / KAFKA_BROKERS, default: the local stack's),
# the suite unpacked in $S3TESTS_DIR and a Python venv with its requirements in $S3TESTS_VENV.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
S3TESTS_DIR=${S3TESTS_DIR:-/tmp/s3-tests}
S3TESTS_VENV=${S3TESTS_VENV:-/tmp/s3-tests-venv}
PORT=${CONFORMANCE_S3_PORT:-39180}
OUT=${CONFORMANCE_OUT:-$root/tools/conformance/results/latest}
work=$(mktemp -d /tmp/ostore-conformance.XXXXXX)
mkdir -p "$OUT"
token=conformance-admin-token-0123456789

export CASSANDRA_CONTACT_POINTS=${CASSANDRA_CONTACT_POINTS:-127.0.0.1} CASSANDRA_PORT=${CASSANDRA_PORT:-9042}
export KAFKA_BROKERS=${KAFKA_BROKERS:-127.0.0.1:9092}
export CASSANDRA_KEYSPACE=${CASSANDRA_KEYSPACE:-conformance_$(date +%s)} OSTORE_CLUSTER=${OSTORE_CLUSTER:-conformance}
export S3_PORT=$PORT S3_HOST=127.0.0.1 MANAGEMENT_PORT=$((PORT + 1)) ADMIN_PORT=$((PORT + 2)) ADMIN_TOKEN=$token
export BLOCK_STORE_DIR=$work/blocks S3_DOMAINS=localhost S3_AUTH_CACHE_MS=0 S3_BUCKET_CACHE_MS=0
# the suite expects ACLs to work on buckets it creates without x-amz-object-ownership, as on Ceph
export S3_DEFAULT_OBJECT_OWNERSHIP=${S3_DEFAULT_OBJECT_OWNERSHIP:-ObjectWriter}

cd "$root"
node --enable-source-maps -r @swc-node/register apps/gateway/src/main.ts > "$work/gateway.log" 2>&1 &
gw=$!
trap 'kill $gw 2>/dev/null || true' EXIT
deadline=$((SECONDS + 180))
until curl -sf "http://127.0.0.1:$((PORT + 1))/health/ready" > /dev/null 2>&1 || curl -sf "http://127.0.0.1:$((PORT + 1))/ready" > /dev/null 2>&1; do
  if ! kill -0 $gw 2>/dev/null; then tail -30 "$work/gateway.log"; exit 1; fi
  if [ $SECONDS -gt $deadline ]; then echo "gateway not ready after 180 s" >&2; tail -30 "$work/gateway.log"; exit 1; fi
  sleep 1
done

# The suite's three users; their ids are their e-mail addresses, so grants by e-mail resolve.
user() { # id display-name access-key secret
  curl -sf -X POST "http://127.0.0.1:$((PORT + 2))/admin/users" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d "{\"id\":\"$1\",\"displayName\":\"$2\",\"accessKeyId\":\"$3\",\"secretAccessKey\":\"$4\"}" > /dev/null
}
user tester@ceph.com 'M. Tester' 0555b35654ad1656d804 'h7GhxuBLTrlhVUyxSPUKUV8r/2EI4ngqJxD7iBdBYLhwluN30JaT3Q=='
user john.doe@example.com john.doe NOPQRSTUVWXYZABCDEFG nopqrstuvwxyzabcdefghijklmnabcdefghijklm
user tenanteduser@example.com tenanteduser HIJKLMNOPQRSTUVWXYZA opqrstuvwxyzabcdefghijklmnopqrstuvwxyzab

sed "s/@PORT@/$PORT/" tools/conformance/s3tests.conf.in > "$work/s3tests.conf"
MARKERS=$(sed -e '/^#/d' -e '/^$/d' -e 's/^/not /' tools/conformance/excluded-markers.txt | paste -sd' ' | sed 's/ not / and not /g')
DESELECT=$(sed -e '/^#/d' -e '/^$/d' tools/conformance/deselected.txt | cut -d' ' -f1 | sed 's/^/--deselect=s3tests\/functional\//' | paste -sd' ')
cd "$S3TESTS_DIR"
CHUNK=${CONFORMANCE_CHUNK:-40}
JOBS=${CONFORMANCE_JOBS:-2}
TIMEOUT=${CONFORMANCE_TEST_TIMEOUT:-180}
py="$S3TESTS_VENV/bin/python"
# a hung test fails alone instead of stopping its chunk (pytest-timeout, when the venv has it)
TIMEOUT_ARGS=
if "$py" -c 'import pytest_timeout' 2> /dev/null; then TIMEOUT_ARGS="--timeout=$TIMEOUT"; fi
# shellcheck disable=SC2086
S3TEST_CONF=$work/s3tests.conf "$py" -m pytest s3tests/functional/test_s3.py s3tests/functional/test_headers.py \
  -m "$MARKERS" $DESELECT -p no:cacheprovider -q --collect-only "$@" 2> /dev/null | grep '::' > "$OUT/selected.txt" || true
echo "$(wc -l < "$OUT/selected.txt") tests selected, chunks of $CHUNK, $JOBS at a time" >&2
# chunk n is the same tests only for the same selection: change the selection, change $CONFORMANCE_OUT
rm -f "$OUT"/chunk-[0-9][0-9][0-9]
split -l "$CHUNK" -d -a 3 "$OUT/selected.txt" "$OUT/chunk-"
run_chunk() { # chunk file: one pytest process (its own bucket prefix) with its own junit and log
  local n=${1##*/chunk-}
  [ -s "$OUT/junit-$n.xml" ] && return 0
  # shellcheck disable=SC2046,SC2086
  S3TEST_CONF=$work/s3tests.conf "$py" -m pytest $(cat "$1") -p no:cacheprovider -q -rfE $TIMEOUT_ARGS \
    --junitxml="$OUT/junit-$n.part.xml" > "$OUT/pytest-$n.log" 2>&1
  [ -s "$OUT/junit-$n.part.xml" ] && mv "$OUT/junit-$n.part.xml" "$OUT/junit-$n.xml"
  echo "chunk $n: $(tail -1 "$OUT/pytest-$n.log")" >&2
}
export -f run_chunk
export OUT work py TIMEOUT_ARGS
set +e
for f in "$OUT"/chunk-[0-9][0-9][0-9]; do echo "$f"; done | xargs -P "$JOBS" -I{} bash -c 'run_chunk "$1"' _ {}
set -e
cp "$work/gateway.log" "$OUT/gateway.log"
"$root/tools/conformance/summarize.py" "$OUT"/junit-[0-9][0-9][0-9].xml | head -1
