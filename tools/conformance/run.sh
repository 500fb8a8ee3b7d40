#!/usr/bin/env bash
# Runs the ceph/s3-tests conformance subset against a gateway this script starts (see README.md).
#   tools/conformance/run.sh [pytest args...]
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
set +e
# shellcheck disable=SC2086
S3TEST_CONF=$work/s3tests.conf "$S3TESTS_VENV/bin/python" -m pytest s3tests/functional/test_s3.py s3tests/functional/test_headers.py \
  -m "$MARKERS" $DESELECT -p no:cacheprovider -q -rfE --junitxml="$OUT/junit.xml" "$@" > "$OUT/pytest.log" 2>&1
rc=$?
set -e
tail -3 "$OUT/pytest.log"
cp "$work/gateway.log" "$OUT/gateway.log"
exit $rc
