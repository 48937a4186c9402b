import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { load } from 'js-yaml';
import { Metrics } from './metrics';

/**
 * The alerting kit of deploy/ (docs/alerting.md) against the registry: every metric a rule or
 * a dashboard panel reads exists, every alert can be acted on and is tested by promtool, and
 * the scrape configuration finds the compose fleet. promtool itself runs in .ci/run.
 */
const ROOT = path.join(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleTests {
  rule_files: string[];
  tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
}
interface Panel {
  title: string;
  type: string;
  datasource?: { uid: string };
  targets?: { expr: string; datasource?: { uid: string } }[];
  gridPos: { x: number; w: number };
}

const rules = (load(read('deploy/prometheus/rules.yml')) as { groups: { name: string; rules: Rule[] }[] }).groups.flatMap(
  (group) => group.rules,
);
const alerts = rules.filter((rule) => rule.alert !== undefined);
const records = new Set(rules.flatMap((rule) => (rule.record ? [rule.record] : [])));
const dashboard = JSON.parse(read('deploy/grafana/dashboards/briefing.json')) as { uid: string; panels: Panel[] };
const queries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));

/** Series every Prometheus has without the service: the scrape's own. */
const PROMETHEUS_SERIES = new Set(['up']);
/** PromQL words that look like names: operators and modifiers (functions are followed by a parenthesis). */
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
]);

/** The metric names an expression reads: its identifiers once strings, matchers, ranges, label lists and functions are set aside. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\boffset\s+-?\w+/g, ' ');
  return [...bare.matchAll(/(?<![\w:.$])([a-zA-Z_:][\w:]*)(?![\w:])(?!\s*\()/g)]
    .map((match) => match[1])
    .filter((name) => !KEYWORDS.has(name));
}

/** Every series name the registry exposes: histograms as their _bucket, _sum and _count. */
async function exposedNames(): Promise<Set<string>> {
  const families = await new Metrics().registry.getMetricsAsJSON();
  return new Set(
    families.flatMap(({ name, type }) =>
      String(type) === 'histogram'
        ? [`${name}_bucket`, `${name}_sum`, `${name}_count`]
        : String(type) === 'summary'
          ? [name, `${name}_sum`, `${name}_count`]
          : [name],
    ),
  );
}

describe('the alerting kit (deploy/prometheus, deploy/grafana)', () => {
  it('reads the expressions the way PromQL does', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (route, le) (rate(http_request_duration_seconds_bucket{status_code=~"5.."}[$__rate_interval]))) > 1e3 and on(route) route:http_requests:rate5m offset 1d',
      ),
    ).toEqual(['http_request_duration_seconds_bucket', 'route:http_requests:rate5m']);
    expect(metricNames('time() - max(x_seconds) > 300 unless on() min(database_up) < 1')).toEqual(['x_seconds', 'database_up']);
  });

  it('names only metrics the service exposes, or records the rules define', async () => {
    const exposed = await exposedNames();
    const unknown = [
      ...rules.map((rule) => ({ where: rule.alert ?? rule.record, expr: rule.expr })),
      ...queries.map((query) => ({ where: `panel "${query.panel}"`, expr: query.expr })),
    ].flatMap(({ where, expr }) =>
      metricNames(expr)
        .filter((name) => !exposed.has(name) && !records.has(name) && !PROMETHEUS_SERIES.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(unknown).toEqual([]);
    expect(queries.length).toBeGreaterThan(20);
  });

  it('gives every alert a severity, a summary, a description and a runbook section in docs/alerting.md', () => {
    const headings = new Set([...read('docs/alerting.md').matchAll(/^#+ (\S+)\s*$/gm)].map((match) => match[1].toLowerCase()));
    expect(alerts.length).toBeGreaterThan(15);
    for (const alert of alerts) {
      expect({ alert: alert.alert, severity: alert.labels?.severity }).toEqual({
        alert: alert.alert,
        severity: expect.stringMatching(/^(critical|warning)$/),
      });
      expect(alert.annotations?.summary).toBeTruthy();
      expect(alert.annotations?.description).toBeTruthy();
      expect({ alert: alert.alert, runbook: alert.annotations?.runbook }).toEqual({
        alert: alert.alert,
        runbook: `docs/alerting.md#${alert.alert!.toLowerCase()}`,
      });
      expect({ alert: alert.alert, documented: headings.has(alert.alert!.toLowerCase()) }).toEqual({
        alert: alert.alert,
        documented: true,
      });
    }
  });

  it('tests every alert in rules.test.yml, firing and silent', () => {
    const tests = load(read('deploy/prometheus/rules.test.yml')) as RuleTests;
    expect(tests.rule_files).toEqual(['rules.yml']);
    const cases = tests.tests.flatMap((group) => group.alert_rule_test ?? []);
    const untested = [...new Set(alerts.map((alert) => alert.alert!))].flatMap((name) => {
      const own = cases.filter((test) => test.alertname === name);
      return [
        ...(own.some((test) => (test.exp_alerts ?? []).length > 0) ? [] : [`${name} never fires`]),
        ...(own.some((test) => (test.exp_alerts ?? []).length === 0) ? [] : [`${name} is never silent`]),
      ];
    });
    expect(untested).toEqual([]);
  });

  it('provisions the dashboard with the data source its panels name', () => {
    const datasources = load(read('deploy/grafana/provisioning/datasources/prometheus.yml')) as {
      datasources: { uid: string; url: string }[];
    };
    const providers = load(read('deploy/grafana/provisioning/dashboards/briefing.yml')) as { providers: { options: { path: string } }[] };
    const compose = read('deploy/prometheus/compose.monitoring.yml');
    const uids = new Set(datasources.datasources.map((source) => source.uid));
    for (const panel of dashboard.panels.filter((candidate) => candidate.type !== 'row')) {
      expect({ panel: panel.title, provisioned: uids.has(panel.datasource?.uid ?? '') }).toEqual({ panel: panel.title, provisioned: true });
      expect(panel.gridPos.x + panel.gridPos.w).toBeLessThanOrEqual(24);
    }
    expect(datasources.datasources[0].url).toBe('http://prometheus:9090');
    expect(compose).toContain(`./deploy/grafana/dashboards:${providers.providers[0].options.path}:ro`);
    expect(compose).toContain('./deploy/grafana/provisioning:/etc/grafana/provisioning:ro');
  });

  it('scrapes every replica of the compose fleet with the token from a file, and loads the rules', () => {
    const config = load(read('deploy/prometheus/prometheus.yml')) as {
      rule_files: string[];
      scrape_configs: {
        job_name: string;
        authorization?: { credentials_file?: string };
        dns_sd_configs?: { names: string[]; type: string; port: number }[];
      }[];
    };
    expect(config.rule_files).toEqual(['rules.yml']);
    const briefing = config.scrape_configs.find((job) => job.job_name === 'briefing')!;
    // rules.yml's instance alerts select this job.
    expect(alerts.find((alert) => alert.alert === 'BriefingInstanceDown')?.expr).toContain('up{job="briefing"}');
    expect(briefing.dns_sd_configs).toEqual([expect.objectContaining({ names: ['api-replica'], type: 'A', port: 3000 })]);
    expect(read('docker-compose.yml')).toMatch(/^ {2}api-replica:$/m);
    const tokenFile = briefing.authorization?.credentials_file;
    expect(tokenFile).toBe('/etc/prometheus/metrics-token');
    expect(read('deploy/prometheus/compose.monitoring.yml')).toContain(`./secrets/metrics-token:${tokenFile}:ro`);
  });

  it('lists every family the registry exposes in docs/metrics.md', async () => {
    const doc = read('docs/metrics.md');
    const families = (await new Metrics().registry.getMetricsAsJSON()).map((family) => family.name);
    // prom-client's process defaults are one row, `process_*`, `nodejs_*`.
    const own = families.filter((name) => !/^(process|nodejs)_/.test(name));
    expect(own.filter((name) => !doc.includes(`| \`${name}\` |`))).toEqual([]);
  });
});
