#!/bin/bash
# Runs experiment 1 for both libraries, one after the other (about 35 minutes).
# Run with Node.js 24 on the PATH.
cd "$(dirname "$0")"
LIB=boss PHASES=A,B,C node exp1-failover.mjs > ../results/exp1-boss.log 2>&1
LIB=gw GW_VARIANT=queue PHASES=A,B,C node exp1-failover.mjs > ../results/exp1-gw-queue.log 2>&1
LIB=gw GW_VARIANT=noqueue PHASES=A,B node exp1-failover.mjs > ../results/exp1-gw-noqueue.log 2>&1
