#!/usr/bin/env node
// Validates every manifest under deploy/kubernetes (or the folder given) against the official
// schemas of its kind, without a cluster:
//   node scripts/validate-kubernetes-manifests.mjs [folder]
// - each document's apiVersion and kind must be one of KINDS below (an unknown kind fails);
// - each is validated by its kubernetes-models class (JSON schemas of Kubernetes' OpenAPI and of
//   the Prometheus Operator's CRDs: types, required fields, enums, formats);
// - those schemas accept fields they do not know, so a misspelt field (`readinessprobe`) would pass:
//   the TypeScript compiler then checks each document as an object literal of the models' types,
//   whose excess-property check refuses any field the kind does not have.
// Prints one line per document; exits 1 naming every problem. test/e2e/kubernetes-manifests.e2e-spec.ts runs it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import ts from 'typescript';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** `apiVersion/kind` → the model class, and the module and interface of its type. */
const KINDS = {
  'v1/Namespace': [Namespace, 'kubernetes-models/v1/Namespace', 'INamespace'],
  'v1/ServiceAccount': [ServiceAccount, 'kubernetes-models/v1/ServiceAccount', 'IServiceAccount'],
  'v1/ConfigMap': [ConfigMap, 'kubernetes-models/v1/ConfigMap', 'IConfigMap'],
  'v1/Service': [Service, 'kubernetes-models/v1/Service', 'IService'],
  'apps/v1/Deployment': [Deployment, 'kubernetes-models/apps/v1/Deployment', 'IDeployment'],
  'batch/v1/Job': [Job, 'kubernetes-models/batch/v1/Job', 'IJob'],
  'networking.k8s.io/v1/Ingress': [Ingress, 'kubernetes-models/networking.k8s.io/v1/Ingress', 'IIngress'],
  'policy/v1/PodDisruptionBudget': [PodDisruptionBudget, 'kubernetes-models/policy/v1/PodDisruptionBudget', 'IPodDisruptionBudget'],
  'autoscaling/v2/HorizontalPodAutoscaler': [
    HorizontalPodAutoscaler,
    'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
    'IHorizontalPodAutoscaler',
  ],
  'monitoring.coreos.com/v1/ServiceMonitor': [
    ServiceMonitor,
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor',
    'IServiceMonitor',
  ],
  'monitoring.coreos.com/v1/PrometheusRule': [
    PrometheusRule,
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule',
    'IPrometheusRule',
  ],
};

function yamlFiles(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? yamlFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)]))
    .filter((file) => /\.ya?ml$/.test(file))
    .sort();
}

/** Every document of every file but the kustomizations (kustomize's own input, not sent to a cluster). */
function documentsIn(dir) {
  return yamlFiles(dir)
    .filter((file) => path.basename(file) !== 'kustomization.yaml')
    .flatMap((file) =>
      loadAll(fs.readFileSync(file, 'utf8'))
        .filter((doc) => doc !== null && doc !== undefined)
        .map((doc, index) => ({ file: path.relative(dir, file), index, doc })),
    );
}

/** The schema's verdict: undefined, or what is wrong. */
function schemaProblem(Model, doc) {
  try {
    new Model(doc).validate();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/\s+/g, ' ') : String(error);
  }
}

/** Each document as a typed object literal in one in-memory module; the compiler's errors, by document. */
function typeProblems(documents) {
  const source = path.join(root, 'scripts', '__kubernetes_manifests__.mts');
  const lines = [];
  const startLines = [];
  documents.forEach(({ doc }, n) => {
    const [, module, type] = KINDS[`${doc.apiVersion}/${doc.kind}`];
    lines.push(`import type { ${type} as T${n} } from '${module}';`);
  });
  documents.forEach(({ doc }, n) => {
    startLines.push(lines.length);
    lines.push(...`export const d${n}: T${n} = ${JSON.stringify(doc, null, 2)};`.split('\n'));
  });
  const text = lines.join('\n');
  const options = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, ...rest) =>
    file === source ? ts.createSourceFile(file, text, language) : getSourceFile(file, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => file === source || fileExists(file);
  const program = ts.createProgram([source], options, host);
  const problems = documents.map(() => []);
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    if (diagnostic.file?.fileName !== source || diagnostic.start === undefined) {
      problems.forEach((list) => list.push(message));
      continue;
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const n = startLines.findLastIndex((start) => start <= line);
    problems[Math.max(n, 0)].push(message);
  }
  return problems;
}

function main() {
  const dir = path.resolve(process.argv[2] ?? path.join(root, 'deploy', 'kubernetes'));
  const documents = documentsIn(dir);
  let failed = documents.length === 0;
  if (failed) console.log(`no manifest in ${dir}`);
  const known = documents.filter(({ doc }) => `${doc.apiVersion}/${doc.kind}` in KINDS);
  const typeResults = typeProblems(known.map(({ doc }) => ({ doc })));
  for (const entry of documents) {
    const { file, index, doc } = entry;
    const key = `${doc.apiVersion}/${doc.kind}`;
    const name = `${file}#${index} ${doc.kind ?? '(no kind)'} ${doc.metadata?.name ?? '(no name)'}`;
    const problems = [];
    if (!(key in KINDS)) {
      problems.push(`unknown kind ${key}: not one of ${Object.keys(KINDS).join(', ')}`);
    } else {
      const schema = schemaProblem(KINDS[key][0], doc);
      if (schema) problems.push(`schema: ${schema}`);
      problems.push(...typeResults[known.indexOf(entry)].map((message) => `fields: ${message}`));
    }
    if (problems.length > 0) failed = true;
    console.log(problems.length === 0 ? `valid   ${name}` : `INVALID ${name}\n${problems.map((line) => `  - ${line}`).join('\n')}`);
  }
  process.exitCode = failed ? 1 : 0;
}

main();
