#!/bin/bash
# Second series of experiment 2: re-runs of pg-boss defaults (with the statement breakdown) and the 'balanced' profile.
# Run with Node.js 24 on the PATH.
cd "$(dirname "$0")"
LIB=boss PROFILE=default node exp2-idle.mjs
LIB=boss PROFILE=default NOTIFY=1 node exp2-idle.mjs
LIB=boss PROFILE=balanced NOTIFY=1 node exp2-idle.mjs
