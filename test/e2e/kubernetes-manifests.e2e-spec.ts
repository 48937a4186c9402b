import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { load, loadAll } from 'js-yaml';
import type { IPrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import type { IServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { INamespace } from 'kubernetes-models/v1/Namespace';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { loadConfig } from '../../src/app-config';
import { SECRET_VARIABLES } from '../../src/config/env-reader';
import { readMigrationConfig } from '../../src/migrate-main';

const ROOT = path.resolve(__dirname, '..', '..');
const MANIFESTS = path.join(ROOT, 'deploy', 'kubernetes');
/** Validates each document against its kind's schemas (kubernetes-models ships ES modules only, which Jest does not load). */
const VALIDATOR = path.join(ROOT, 'scripts', 'validate-kubernetes-manifests.mjs');

/** The kinds the manifests hold, by `apiVersion/kind` (the validator refuses any other). */
interface Kinds {
  'v1/Namespace': INamespace;
  'v1/ServiceAccount': IServiceAccount;
  'v1/ConfigMap': IConfigMap;
  'v1/Service': IService;
  'apps/v1/Deployment': IDeployment;
  'batch/v1/Job': IJob;
  'networking.k8s.io/v1/Ingress': IIngress;
  'policy/v1/PodDisruptionBudget': IPodDisruptionBudget;
  'autoscaling/v2/HorizontalPodAutoscaler': IHorizontalPodAutoscaler;
  'monitoring.coreos.com/v1/ServiceMonitor': IServiceMonitor;
  'monitoring.coreos.com/v1/PrometheusRule': IPrometheusRule;
}

interface Manifest {
  file: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // Each test reads what it needs through the typed models below.
  [field: string]: unknown;
}

interface Kustomization {
  namespace: string;
  resources: string[];
  images: { name: string; newName: string; newTag: string }[];
}

function yamlFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? yamlFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)]))
    .filter((file) => /\.ya?ml$/.test(file))
    .sort();
}

const relative = (file: string) => path.relative(MANIFESTS, file);
const files = yamlFiles(MANIFESTS);
const kustomizationFiles = files.filter((file) => path.basename(file) === 'kustomization.yaml');
const kustomizations = new Map(kustomizationFiles.map((file) => [file, load(fs.readFileSync(file, 'utf8')) as Kustomization]));
const manifests: Manifest[] = files
  .filter((file) => !kustomizationFiles.includes(file))
  .flatMap((file) =>
    loadAll(fs.readFileSync(file, 'utf8'))
      .filter((doc) => doc !== null && doc !== undefined)
      .map((doc) => ({ ...(doc as Omit<Manifest, 'file'>), file: relative(file) }) as Manifest),
  );

/** The one document of that kind. */
function only<K extends keyof Kinds>(key: K): Kinds[K] {
  const found = manifests.filter((manifest) => `${manifest.apiVersion}/${manifest.kind}` === key);
  expect(found.map((manifest) => manifest.file)).toHaveLength(1);
  const { file: _file, ...doc } = found[0];
  return doc as unknown as Kinds[K];
}

/** The validator's verdict on a folder of manifests. */
function validate(dir: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [VALIDATOR, dir], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const deployment = () => only('apps/v1/Deployment');
const job = () => only('batch/v1/Job');
const podSpecs = (): [string, IPodSpec][] => [
  ['Deployment', deployment().spec!.template.spec!],
  ['Job', job().spec!.template.spec!],
];
const apiContainer = () => deployment().spec!.template.spec!.containers.find((container) => container.name === 'api')!;

/** The variables of a container, the ConfigMaps it takes whole included. */
function environmentOf(container: IContainer): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const name = source.configMapRef?.name;
    const configMap = only('v1/ConfigMap');
    expect(name).toBe(configMap.metadata!.name);
    Object.assign(env, configMap.data);
  }
  for (const variable of container.env ?? []) {
    expect(variable.valueFrom).toBeUndefined(); // secrets come as files, never as variables
    env[variable.name] = variable.value!;
  }
  return env;
}

/** Values shaped like the real secrets, one per key of the Secret `disclosure-briefing-secrets`. */
const SAMPLE_SECRETS: Record<string, string> = {
  'database-url': 'postgres://briefing:a-password@postgres.internal:5432/briefing',
  'jwt-secret': 'j'.repeat(48),
  'admin-key': 'a'.repeat(40),
  'dart-api-key': 'd'.repeat(40),
  'metrics-token': 'm'.repeat(40),
};

/**
 * The container's environment with each `*_FILE` path moved to a file of a sample value in
 * `dir`: what the process would read, the mounts checked on the way (a secret's file must come
 * from a mounted secret volume that holds its key).
 */
function withSecretFiles(pod: IPodSpec, container: IContainer, dir: string): Record<string, string> {
  const env = environmentOf(container);
  for (const [name, value] of Object.entries(env)) {
    if (!name.endsWith('_FILE')) continue;
    const mount = container.volumeMounts?.find((candidate) => path.dirname(value) === candidate.mountPath);
    expect({ name, mounted: mount?.readOnly }).toEqual({ name, mounted: true });
    const volume = pod.volumes?.find((candidate) => candidate.name === mount!.name);
    expect(volume?.secret?.secretName).toBe('disclosure-briefing-secrets');
    // Readable by the pod's group (fsGroup), by no one else.
    expect(volume!.secret!.defaultMode).toBe(0o440);
    expect(pod.securityContext?.fsGroup).toBe(pod.securityContext?.runAsGroup);
    const key = path.basename(value);
    const items = volume!.secret!.items;
    if (items) expect(items.map((item) => item.path)).toContain(key);
    expect(Object.keys(SAMPLE_SECRETS)).toContain(key);
    const file = path.join(dir, key);
    fs.writeFileSync(file, `${SAMPLE_SECRETS[key]}\n`);
    env[name] = file;
  }
  return env;
}

/** Whether the Ingress routes `requestPath` (Kubernetes' Prefix matching is by whole path elements). */
function routes(ingress: IIngress, requestPath: string): boolean {
  return (ingress.spec?.rules ?? []).some((rule) =>
    (rule.http?.paths ?? []).some(({ path: prefix = '/', pathType }) => {
      if (pathType === 'Exact') return requestPath === prefix;
      const trimmed = prefix.replace(/\/+$/, '');
      return requestPath === trimmed || requestPath.startsWith(`${trimmed}/`);
    }),
  );
}

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  let secretDir: string;
  beforeAll(() => {
    secretDir = fs.mkdtempSync(path.join(os.tmpdir(), 'briefing-k8s-secrets-'));
  });
  afterAll(() => fs.rmSync(secretDir, { recursive: true, force: true }));

  it('lists every manifest in its folder’s kustomization, and nothing that is missing', () => {
    expect(kustomizationFiles.map(relative)).toEqual(['kustomization.yaml', 'migrate/kustomization.yaml']);
    const listed = [...kustomizations].flatMap(([file, kustomization]) =>
      kustomization.resources.map((resource) => path.join(path.dirname(file), resource)),
    );
    expect(listed.map(relative).sort()).toEqual(files.filter((file) => !kustomizationFiles.includes(file)).map(relative));
  });

  it('holds only known kinds, each valid against its schemas, with no field its kind does not have', () => {
    const { status, output } = validate(MANIFESTS);
    expect({ status, output }).toEqual({ status: 0, output: expect.any(String) });
    const validated = output.split('\n').filter((line) => line.startsWith('valid '));
    expect(validated).toHaveLength(manifests.length);
    for (const { file } of manifests) expect(output).toContain(`valid   ${file}#`);
  });

  it('the validator refuses an unknown kind, a wrong type and a misspelt field, naming each', () => {
    const broken = fs.mkdtempSync(path.join(os.tmpdir(), 'briefing-k8s-broken-'));
    try {
      const deployment = fs.readFileSync(path.join(MANIFESTS, 'deployment.yaml'), 'utf8');
      fs.writeFileSync(path.join(broken, 'typo.yaml'), deployment.replace('readinessProbe:', 'readinessprobe:'));
      fs.writeFileSync(path.join(broken, 'type.yaml'), deployment.replace('failureThreshold: 24', 'failureThreshold: "24"'));
      fs.writeFileSync(path.join(broken, 'secret.yaml'), 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: inline\n');
      const { status, output } = validate(broken);
      expect(status).toBe(1);
      expect(output).toMatch(/INVALID secret\.yaml#0 Secret inline\n {2}- unknown kind v1\/Secret/);
      expect(output).toMatch(
        /INVALID type\.yaml#0 Deployment disclosure-briefing\n {2}- schema: .*startupProbe\/failureThreshold must be integer/,
      );
      expect(output).toMatch(
        /INVALID typo\.yaml#0 Deployment disclosure-briefing\n {2}- fields: .*'"readinessprobe"' does not exist in type 'IContainer'/,
      );
    } finally {
      fs.rmSync(broken, { recursive: true, force: true });
    }
  });

  it('deploys one image in one namespace, the job’s and the service’s alike', () => {
    const [main, migrate] = [...kustomizations.values()];
    expect(migrate.namespace).toBe(main.namespace);
    expect(migrate.images).toEqual(main.images);
    expect(only('v1/Namespace').metadata!.name).toBe(main.namespace);
    expect(apiContainer().image).toBe(main.images[0].name);
    expect(job().spec!.template.spec!.containers[0].image).toBe(main.images[0].name);
  });

  it('runs every pod unprivileged: non-root, read-only root filesystem, no capabilities, RuntimeDefault seccomp, no API token', () => {
    expect(only('v1/Namespace').metadata!.labels).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    expect(only('v1/ServiceAccount').automountServiceAccountToken).toBe(false);
    for (const [owner, pod] of podSpecs()) {
      expect({ owner, pod: pod.securityContext }).toMatchObject({
        owner,
        pod: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
      });
      expect({ owner, token: pod.automountServiceAccountToken }).toEqual({ owner, token: false });
      expect(pod.hostNetwork ?? false).toBe(false);
      for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
        expect({ owner, container: container.name, securityContext: container.securityContext }).toMatchObject({
          owner,
          container: container.name,
          securityContext: {
            runAsNonRoot: true,
            allowPrivilegeEscalation: false,
            privileged: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          },
        });
        expect(container.securityContext!.capabilities!.add ?? []).toEqual([]);
        expect(container.resources?.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
        expect(container.resources?.limits).toMatchObject({ memory: expect.any(String) });
      }
    }
    // Where the service writes (the stock sync's temporary corpCode.xml ZIP, os.tmpdir()): a bounded emptyDir.
    const pod = deployment().spec!.template.spec!;
    const tmp = apiContainer().volumeMounts!.find((mount) => mount.mountPath === os.tmpdir());
    expect(pod.volumes!.find((volume) => volume.name === tmp?.name)?.emptyDir?.sizeLimit).toBeDefined();
  });

  it('probes the health routes: readiness /health/ready, liveness and startup /health, on the image’s port', () => {
    const container = apiContainer();
    const port = container.ports!.find((candidate) => candidate.name === 'http')!;
    // The image's PORT (Dockerfile), which the Deployment sets too.
    expect(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')).toMatch(new RegExp(`PORT=${port.containerPort}\\b`));
    expect(environmentOf(container).PORT).toBe(String(port.containerPort));
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/health/ready', port: 'http' });
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(container.startupProbe?.httpGet).toEqual({ path: '/health', port: 'http' });
    const openapi = JSON.parse(fs.readFileSync(path.join(ROOT, 'openapi.json'), 'utf8')) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/health', '/health/ready']));
    // A startup of up to two minutes before liveness may restart the instance.
    const startup = container.startupProbe!;
    expect(startup.periodSeconds! * startup.failureThreshold!).toBeGreaterThanOrEqual(120);
  });

  it('gives a stopping instance the preStop pause plus the shutdown grace of docker-compose.yml', () => {
    const compose = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
    const [, composeGrace] = /stop_grace_period: (\d+)s/.exec(compose)!;
    const preStop = apiContainer().lifecycle!.preStop!.exec!.command!;
    expect(preStop.slice(0, 1)).toEqual(['sleep']);
    expect(deployment().spec!.template.spec!.terminationGracePeriodSeconds).toBe(Number(preStop[1]) + Number(composeGrace));
  });

  it('configures a valid production instance: settings from the ConfigMap, secrets as files, migrations off at start', () => {
    const pod = deployment().spec!.template.spec!;
    const env = withSecretFiles(pod, apiContainer(), secretDir);
    expect(env.APP_ENV).toBe('production');
    const config = loadConfig(env);
    expect(config).toMatchObject({ appEnv: 'production', migrationsAtStart: false, databaseUrl: SAMPLE_SECRETS['database-url'] });
    // No credential in the ConfigMap or in a plain variable: each is a file.
    const plain = Object.keys(environmentOf(apiContainer()));
    expect(plain.filter((name) => SECRET_VARIABLES.has(name))).toEqual([]);
    expect(plain.filter((name) => name.endsWith('_FILE')).sort()).toEqual([
      'ADMIN_KEY_FILE',
      'DART_API_KEY_FILE',
      'DATABASE_URL_FILE',
      'JWT_SECRET_FILE',
      'METRICS_TOKEN_FILE',
    ]);
  });

  it('migrates before deploying: the job runs the migration command of the image with the database credentials only', () => {
    const migrate = job();
    const container = migrate.spec!.template.spec!.containers[0];
    expect(container.command).toEqual(['node', 'dist/src/migrate-main.js']);
    // dist/ is the compiled src/ (tsconfig.build.json), and the image holds dist/ (Dockerfile).
    expect(fs.existsSync(path.join(ROOT, 'src', 'migrate-main.ts'))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')).include).toContain('src');
    expect(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')).toContain('COPY --from=build /app/dist ./dist');
    expect(migrate.metadata!.annotations).toMatchObject({ 'argocd.argoproj.io/hook': 'PreSync' });
    expect(migrate.spec!.template.spec!.restartPolicy).toBe('Never');

    const env = withSecretFiles(migrate.spec!.template.spec!, container, secretDir);
    expect(Object.keys(env).sort()).toEqual(['APP_ENV', 'DATABASE_URL_FILE', 'LOG_LEVEL']);
    expect(readMigrationConfig(env)).toMatchObject({ appEnv: 'production', databaseUrl: SAMPLE_SECRETS['database-url'] });
    const volumes = migrate.spec!.template.spec!.volumes!;
    expect(volumes.flatMap((volume) => volume.secret?.items?.map((item) => item.key) ?? [])).toEqual(['database-url']);
  });

  it('routes every public API route through the Ingress, over TLS, and none of the admin, metrics, docs or health routes', () => {
    const ingress = only('networking.k8s.io/v1/Ingress');
    const openapi = JSON.parse(fs.readFileSync(path.join(ROOT, 'openapi.json'), 'utf8')) as { paths: Record<string, unknown> };
    const concrete = Object.keys(openapi.paths).map((route) => route.replace(/\{[^}]+\}/g, '0'));
    const internal = (route: string) => /^\/(api\/v1\/admin|health|metrics|docs)(\/|$|-)/.test(route);
    const publicRoutes = concrete.filter((route) => !internal(route));
    const privateRoutes = [...concrete.filter(internal), '/metrics', '/docs', '/docs/', '/docs-json', '/api/v1/admin', '/'];
    expect(publicRoutes.length).toBeGreaterThan(20);
    expect(publicRoutes.filter((route) => !routes(ingress, route))).toEqual([]);
    expect(privateRoutes.filter((route) => routes(ingress, route))).toEqual([]);
    expect(ingress.spec!.tls![0].hosts).toEqual(ingress.spec!.rules!.map((rule) => rule.host));
    for (const rule of ingress.spec!.rules!) {
      for (const { backend } of rule.http!.paths) expect(backend.service).toEqual({ name: 'disclosure-briefing', port: { name: 'http' } });
    }
  });

  it('points the Service, the budget, the autoscaler and the monitor at the Deployment’s pods', () => {
    const podLabels = deployment().spec!.template.metadata!.labels!;
    const selects = (selector: Record<string, string> | undefined) =>
      Object.entries(selector ?? {}).every(([label, value]) => podLabels[label] === value);
    const service = only('v1/Service');
    expect(selects(service.spec!.selector)).toBe(true);
    expect(service.spec!.ports!.map((port) => port.targetPort)).toEqual(['http']);
    expect(selects(only('policy/v1/PodDisruptionBudget').spec!.selector!.matchLabels)).toBe(true);
    expect(selects(deployment().spec!.selector.matchLabels)).toBe(true);
    // The job's pods are never the Service's endpoints.
    const jobLabels = job().spec!.template.metadata!.labels!;
    expect(Object.entries(service.spec!.selector!).every(([label, value]) => jobLabels[label] === value)).toBe(false);

    const hpa = only('autoscaling/v2/HorizontalPodAutoscaler');
    expect(hpa.spec!.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment().metadata!.name });
    expect(hpa.spec!.minReplicas).toBeGreaterThanOrEqual(2);
    // The autoscaler owns the count: a replica count in the Deployment would undo its work at each apply.
    expect(deployment().spec!.replicas).toBeUndefined();

    const monitor = only('monitoring.coreos.com/v1/ServiceMonitor');
    const serviceLabels = service.metadata!.labels!;
    expect(Object.entries(monitor.spec.selector.matchLabels!).every(([label, value]) => serviceLabels[label] === value)).toBe(true);
    const [endpoint] = monitor.spec.endpoints!;
    expect(service.spec!.ports!.map((port) => port.name)).toContain(endpoint.port);
    expect(endpoint.path).toBe('/metrics');
    expect(endpoint.authorization).toEqual({ type: 'Bearer', credentials: { name: 'disclosure-briefing-secrets', key: 'metrics-token' } });
    expect(Object.keys(SAMPLE_SECRETS)).toContain(endpoint.authorization!.credentials!.key);
  });

  it('scrapes as the job the alert rules select, and carries the rules of deploy/prometheus/rules.yml unchanged', () => {
    const prometheus = load(fs.readFileSync(path.join(ROOT, 'deploy', 'prometheus', 'prometheus.yml'), 'utf8')) as {
      scrape_configs: { job_name: string; metrics_path?: string }[];
    };
    const scrapeJob = prometheus.scrape_configs.find((config) => config.metrics_path === '/metrics')!.job_name;
    const [endpoint] = only('monitoring.coreos.com/v1/ServiceMonitor').spec.endpoints!;
    expect(endpoint.relabelings).toContainEqual({ action: 'replace', targetLabel: 'job', replacement: scrapeJob });

    const rules = load(fs.readFileSync(path.join(ROOT, 'deploy', 'prometheus', 'rules.yml'), 'utf8')) as { groups: unknown[] };
    // Regenerate with `node scripts/kubernetes-prometheus-rule.js` after changing rules.yml.
    expect(only('monitoring.coreos.com/v1/PrometheusRule').spec!.groups).toEqual(rules.groups);
  });

  it('names every key of the Secret in docs/kubernetes.md, which tells how to create it', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'kubernetes.md'), 'utf8');
    for (const key of Object.keys(SAMPLE_SECRETS)) expect(doc).toContain(`--from-file=${key}=`);
  });
});
