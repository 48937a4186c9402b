#!/usr/bin/env node
// Writes deploy/kubernetes/prometheusrule.yaml: the Prometheus Operator's PrometheusRule holding the
// groups of deploy/prometheus/rules.yml, the one place the alert and recording rules are written
// (promtool tests that file). Run it after changing the rules:
//   node scripts/kubernetes-prometheus-rule.js
// test/e2e/kubernetes-manifests.e2e-spec.ts fails while the manifest's groups differ from the file's.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const yaml = require('js-yaml');

const root = path.resolve(__dirname, '..');
const RULES = 'deploy/prometheus/rules.yml';
const MANIFEST = 'deploy/kubernetes/prometheusrule.yaml';

/** The PrometheusRule of the rule file's text. */
function prometheusRule(rulesText) {
  const { groups } = yaml.load(rulesText);
  if (!Array.isArray(groups) || groups.length === 0) throw new Error(`${RULES} has no rule groups`);
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name: 'disclosure-briefing',
      // `release` is what kube-prometheus-stack's Prometheus selects rules by: set it to yours (as servicemonitor.yaml's).
      labels: { 'app.kubernetes.io/name': 'disclosure-briefing', release: 'prometheus' },
    },
    spec: { groups },
  };
}

function main() {
  const manifest = prometheusRule(fs.readFileSync(path.join(root, RULES), 'utf8'));
  const header = [
    `# Generated from ${RULES} by \`node scripts/kubernetes-prometheus-rule.js\`: edit that file, then run the script.`,
    '# test/e2e/kubernetes-manifests.e2e-spec.ts fails while the two differ.',
  ].join('\n');
  fs.writeFileSync(path.join(root, MANIFEST), `${header}\n${yaml.dump(manifest, { lineWidth: -1, noRefs: true })}`);
  console.log(`wrote ${MANIFEST}: ${manifest.spec.groups.length} rule groups from ${RULES}`);
}

if (require.main === module) main();

module.exports = { prometheusRule };
