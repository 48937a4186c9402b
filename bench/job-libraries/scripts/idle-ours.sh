#!/bin/bash
# Three instances of the service on one database, idle: statements per second reaching PostgreSQL.
set -e
DB=jobs_idle_ours
psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $DB" test
psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE $DB" test
cd "$(dirname "$0")/../../.."
OUT=${TMPDIR:-/tmp}/idle-ours; mkdir -p "$OUT"
# Needs the build: npm run build && npx tsc -p local/tsconfig.json
pids=()
for i in 1 2 3; do
  DATA_DIR=$OUT/data$i PORT=$((3200+i)) DATABASE_URL=postgres://postgres@127.0.0.1:5432/$DB \
  DISCLOSURE_MONITOR_AUTO_START=false STOCK_SYNC_BOOTSTRAP=false ANALYSIS_SCHEDULER_AUTO_START=true \
  LOG_LEVEL=warn node -e "require('./dist/src/main.js').bootstrap(require('./dist-local/local/local-stand-ins.js').startLocalStandIns)" > "$OUT/out$i.log" 2>&1 &
  pids+=($!)
done
sleep 30
q() { psql -h 127.0.0.1 -U postgres -Atc "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '$DB'" test; }
for w in 1 2 3; do
  a=$(q); sleep 60; b=$(q)
  echo "window $w: $(( (b - a) )) transactions in 60 s = $(echo "scale=2; ($b - $a)/60" | bc)/s"
done
kill ${pids[@]}; wait 2>/dev/null || true
