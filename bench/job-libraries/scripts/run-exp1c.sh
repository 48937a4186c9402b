#!/bin/bash
# Third series of experiment 1: phase D (a frozen holder: SIGSTOP 25 s, then SIGCONT) for each library.
# Run with Node.js 24 on the PATH.
cd "$(dirname "$0")"
LIB=boss PHASES=D TAG_SUFFIX=-phaseD node exp1-failover.mjs > ../results/exp1-boss-phaseD.log 2>&1
LIB=boss PROFILE=balanced PHASES=D TAG_SUFFIX=-phaseD node exp1-failover.mjs > ../results/exp1-boss-balanced-phaseD.log 2>&1
LIB=gw GW_VARIANT=queue PHASES=D TAG_SUFFIX=-phaseD node exp1-failover.mjs > ../results/exp1-gw-queue-phaseD.log 2>&1
