#!/bin/bash
# Experiment 3 again for pg-boss's polling configurations, with the pause spread over a whole poll interval.
# Run with Node.js 24 on the PATH.
cd "$(dirname "$0")"
for c in boss-poll0.5 boss-poll2; do CONFIG=$c node exp3-latency.mjs; done
