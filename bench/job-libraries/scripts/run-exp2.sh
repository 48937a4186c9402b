#!/bin/bash
# Runs experiment 2 (idle cost) for every configuration, one after the other (about 20 minutes).
# Run with Node.js 24 on the PATH.
cd "$(dirname "$0")"
LIB=boss PROFILE=default node exp2-idle.mjs
LIB=boss PROFILE=default NOTIFY=1 node exp2-idle.mjs
LIB=boss PROFILE=fast node exp2-idle.mjs
LIB=gw PROFILE=default GW_RUNNERS=split node exp2-idle.mjs
LIB=gw PROFILE=default GW_RUNNERS=single node exp2-idle.mjs
LIB=gw PROFILE=fast GW_RUNNERS=split node exp2-idle.mjs
