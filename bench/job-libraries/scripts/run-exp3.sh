#!/bin/bash
# Runs experiment 3 (enqueue-to-start latency) for every configuration (about 20 minutes).
# Run with Node.js 24 on the PATH.
cd "$(dirname "$0")"
for c in gw-poll2000 boss-notify boss-poll0.5 boss-poll2; do CONFIG=$c node exp3-latency.mjs; done
