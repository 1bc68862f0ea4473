import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { loadConfig } from '../src/config.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { tempDir } from './helpers/server.js';
import { programPath, skipWithoutProgram } from './helpers/programs.js';

const run = promisify(execFile);
const K8S = join(PACKAGE_ROOT, 'deploy', 'kubernetes');
const UNIT = join(PACKAGE_ROOT, 'deploy', 'systemd', 'dashplane.service');
const VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The Kubernetes models (generated from the Kubernetes OpenAPI schemas) that validate each kind. */
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'v1/Secret': Secret,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

/** Every document of every manifest file, by kind. */
function manifests(): { file: string; doc: any }[] {
  return readdirSync(K8S)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((file) => parseAllDocuments(readFileSync(join(K8S, file), 'utf8')).map((d) => ({ file, doc: d.toJS() })));
}

const byKind = (kind: string) =>
  manifests()
    .filter((m) => m.doc.kind === kind)
    .map((m) => m.doc);

/** Checks configuration the way the server reads it at start: no error, and no ignored environment variable. */
function expectAccepted(env: Record<string, string>, configText?: string): void {
  const dir = tempDir('dashplane-deploy-');
  try {
    const file = configText === undefined ? undefined : join(dir.path, 'config.yaml');
    if (file) writeFileSync(file, configText!);
    const { warnings } = loadConfig({ ...(file ? { file } : {}), env });
    expect(warnings, 'environment variables the server would ignore').to.deep.equal([]);
  } finally {
    dir.remove();
  }
}

/** Dockerfile instructions, continuation lines joined. */
function dockerfile(): { op: string; args: string }[] {
  return readFileSync(join(PACKAGE_ROOT, 'Dockerfile'), 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.trim().split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

describe('deployment files (deploy/, Dockerfile)', function () {
  this.timeout(60_000);

  describe('Kubernetes manifests (deploy/kubernetes)', () => {
    it('every document is a valid object of its kind per the Kubernetes schemas (kubernetes-models), and kustomization.yaml lists every file', () => {
      const all = manifests();
      expect(all.map((m) => m.doc.kind).sort()).to.deep.equal(['ConfigMap', 'Deployment', 'PodDisruptionBudget', 'Secret', 'Service']);
      for (const { file, doc } of all) {
        const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
        expect(Model, `${file}: ${doc.apiVersion} ${doc.kind}`).to.not.equal(undefined);
        expect(() => new Model(doc).validate(), file).to.not.throw();
      }
      const kustomization = parseAllDocuments(readFileSync(join(K8S, 'kustomization.yaml'), 'utf8'))[0].toJS();
      expect([...kustomization.resources].sort()).to.deep.equal([...new Set(all.map((m) => m.file))].sort());
    });

    it('a broken manifest is refused by the same check (the check can fail)', () => {
      const [deployment] = byKind('Deployment');
      const broken = structuredClone(deployment);
      broken.spec.template.spec.containers[0].ports[0].containerPort = 'eight thousand';
      expect(() => new Deployment(broken).validate()).to.throw(/containerPort/);
    });

    it('fit together: selectors, probes on /api/v1/health, the port the configuration listens on, the secret keys, the image version', () => {
      const [deployment] = byKind('Deployment');
      const [service] = byKind('Service');
      const [pdb] = byKind('PodDisruptionBudget');
      const [secret] = byKind('Secret');
      const [configMap] = byKind('ConfigMap');
      const pod = deployment.spec.template;
      const labels = pod.metadata.labels;
      expect(deployment.spec.replicas).to.be.greaterThan(1);
      expect(labels).to.include(deployment.spec.selector.matchLabels);
      expect(labels).to.include(service.spec.selector);
      expect(pdb.spec.selector.matchLabels).to.deep.equal(deployment.spec.selector.matchLabels);
      const [c] = pod.spec.containers;
      expect(c.image).to.equal(`dashplane:${VERSION}`);
      expect(service.spec.ports[0].targetPort).to.equal(c.ports[0].name);
      for (const probe of [c.startupProbe, c.readinessProbe])
        expect(probe.httpGet).to.deep.equal({ path: '/api/v1/health', port: c.ports[0].name });
      expect(pod.spec.securityContext.runAsNonRoot).to.equal(true);
      expect(c.securityContext.readOnlyRootFilesystem).to.equal(true);
      expect(pod.spec.enableServiceLinks, 'no injected DASHPLANE_SERVICE_* variables').to.equal(false);
      const config = parseAllDocuments(configMap.data['config.yaml'])[0].toJS();
      expect(config.listen).to.equal(`:${c.ports[0].containerPort}`);
      for (const e of c.env.filter((x: any) => x.valueFrom)) {
        expect(e.valueFrom.secretKeyRef.name).to.equal(secret.metadata.name);
        expect(secret.stringData, e.name).to.have.property(e.valueFrom.secretKeyRef.key);
      }
      const keyVolume = pod.spec.volumes.find((v: any) => v.secret);
      for (const item of keyVolume.secret.items) expect(secret.stringData).to.have.property(item.key);
      const mount = c.volumeMounts.find((m: any) => m.name === keyVolume.name).mountPath;
      expect(c.env.find((e: any) => e.name === 'DASHPLANE_SECURITY_ENCRYPTION_KEY_FILE').value).to.equal(
        `${mount}/${keyVolume.secret.items[0].path}`,
      );
      expect(c.args).to.deep.equal(['--config', `${c.volumeMounts.find((m: any) => m.name === 'config').mountPath}/config.yaml`]);
    });

    it('the server accepts their configuration: the ConfigMap file and every environment variable (with sample secret values)', () => {
      const [deployment] = byKind('Deployment');
      const [configMap] = byKind('ConfigMap');
      const env: Record<string, string> = {};
      for (const e of deployment.spec.template.spec.containers[0].env) {
        env[e.name] = e.value ?? (e.name.endsWith('URL') ? 'postgres://dashplane@db:5432/dashplane' : 'sample-value');
      }
      expectAccepted(env, configMap.data['config.yaml']);
    });
  });

  describe('Dockerfile', () => {
    it('builds in one stage and runs `npm ci --omit=dev` + `node dist/src/bin/dashplane.js` as a non-root user in the other', () => {
      const ops = dockerfile();
      const stages = ops.filter((o) => o.op === 'FROM');
      expect(stages).to.have.length(2);
      const runtime = ops.slice(ops.lastIndexOf(stages[1]));
      const build = ops.slice(0, ops.lastIndexOf(stages[1]));
      expect(build.some((o) => o.op === 'RUN' && /npm run build/.test(o.args))).to.equal(true);
      expect(runtime.some((o) => o.op === 'RUN' && /npm ci --omit=dev/.test(o.args))).to.equal(true);
      expect(runtime.find((o) => o.op === 'ENTRYPOINT')!.args).to.equal('["node", "dist/src/bin/dashplane.js"]');
      const user = runtime.find((o) => o.op === 'USER')!.args;
      expect(user).to.not.match(/^(root|0)$/);
      // the build script makes what the runtime stage copies
      const scripts = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
      expect(scripts.build)
        .to.match(/tsc -p tsconfig\.build\.json/)
        .and.match(/build-ui/);
      const copied = runtime.filter((o) => o.op === 'COPY' && o.args.startsWith('--from=build')).map((o) => o.args.split(/\s+/)[1]);
      expect(copied).to.deep.equal(['/src/dist/src', '/src/dist/cli', '/src/ui/dist']);
    });

    it('copies only files that exist, keeps build output and node_modules out of the context, and starts configured by environment', () => {
      const ops = dockerfile();
      for (const o of ops.filter((x) => x.op === 'COPY' && !x.args.startsWith('--from'))) {
        const sources = o.args
          .split(/\s+/)
          .slice(0, -1)
          .filter((s) => s !== '.');
        for (const s of sources) expect(existsSync(join(PACKAGE_ROOT, s)), `COPY ${s}`).to.equal(true);
      }
      const ignored = readFileSync(join(PACKAGE_ROOT, '.dockerignore'), 'utf8').split('\n');
      expect(ignored).to.include.members(['node_modules', 'dist', '.git']);
      const runtime = ops.slice(ops.map((o) => o.op).lastIndexOf('FROM'));
      const envLine = runtime.find((o) => o.op === 'ENV')!.args;
      const env = Object.fromEntries([...envLine.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
      delete env.NODE_ENV;
      expectAccepted(env);
      expect(runtime.find((o) => o.op === 'VOLUME')!.args).to.equal(`["${env.DASHPLANE_DATABASE_LEVEL_PATH}"]`);
      const port = env.DASHPLANE_LISTEN.split(':').pop();
      expect(runtime.find((o) => o.op === 'EXPOSE')!.args).to.equal(port);
      expect(runtime.find((o) => o.op === 'HEALTHCHECK')!.args).to.include(`http://127.0.0.1:${port}/api/v1/health`);
    });
  });

  describe('systemd unit (deploy/systemd/dashplane.service)', () => {
    let analyze: string | undefined;
    before(function () {
      skipWithoutProgram(this, 'systemd-analyze');
      analyze = programPath('systemd-analyze');
    });

    it('passes `systemd-analyze verify` without a warning', async () => {
      const { stdout, stderr } = await run(analyze!, ['verify', '--man=no', UNIT]).catch(
        (e: { stdout: string; stderr: string; code: number }) => {
          throw new Error(`systemd-analyze verify failed (${e.code}):\n${e.stdout}${e.stderr}`);
        },
      );
      expect(`${stdout}${stderr}`.split('\n').filter((l) => l.includes('dashplane.service'))).to.deep.equal([]);
    });

    it('is hardened: DynamicUser, ProtectSystem=strict, a StateDirectory, and an exposure of at most 2.0 by `systemd-analyze security`', async () => {
      const unit = readFileSync(UNIT, 'utf8');
      for (const line of ['DynamicUser=yes', 'ProtectSystem=strict', 'StateDirectory=dashplane', 'NoNewPrivileges=yes'])
        expect(unit).to.match(new RegExp(`^${line}$`, 'm'));
      const { stdout } = await run(analyze!, ['security', '--offline=yes', UNIT]);
      const score = Number(/Overall exposure level for dashplane\.service: ([\d.]+)/.exec(stdout)?.[1]);
      expect(score, stdout.split('\n').slice(-3).join('\n')).to.be.at.most(2);
    });

    it('its environment is configuration the server accepts, and it keeps the data in its state directory', () => {
      const unit = readFileSync(UNIT, 'utf8');
      const env = Object.fromEntries(
        [...unit.matchAll(/^Environment=(\w+)=(.*)$/gm)].map((m) => [m[1], m[2].replace('%d', '/run/credentials/dashplane.service')]),
      );
      delete env.NODE_ENV;
      expectAccepted(env);
      expect(env.DASHPLANE_DATABASE_LEVEL_PATH).to.equal('/var/lib/dashplane');
      expect(unit).to.match(/^ExecStart=\/usr\/bin\/node \/opt\/dashplane\/dist\/src\/bin\/dashplane\.js /m);
    });
  });
});
