#!/bin/bash
# Second series of experiment 1: pg-boss with the 'balanced' profile (phases A and C), and
# graphile-worker's phase B again with an idle victim (the first series killed a busy one).
# Run with Node.js 24 on the PATH.
cd "$(dirname "$0")"
LIB=boss PROFILE=balanced PHASES=A,C node exp1-failover.mjs > ../results/exp1-boss-balanced.log 2>&1
LIB=gw GW_VARIANT=queue PHASES=B TAG_SUFFIX=-phaseB node exp1-failover.mjs > ../results/exp1-gw-queue-phaseB.log 2>&1
