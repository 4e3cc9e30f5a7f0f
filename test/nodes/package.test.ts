/**
 * What npm users get: both packages packed as the release workflow publishes them (scripts/pack-packages.mjs, from
 * the built tree), and the release workflow that publishes them. n8n's scan and npm's dry run of the same tarballs
 * run in `npm run check:package`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { parse } from 'yaml';

import { PACKAGE_ROOT } from './helpers/n8n';

interface Manifest {
  name: string;
  version: string;
  main?: string;
  workspaces?: unknown;
  license: string;
  homepage: string;
  repository: { type: string; url: string; directory?: string };
  bugs: { url: string };
  bin?: Record<string, string>;
  n8n?: { strict: boolean; nodes: string[]; credentials: string[] };
}

interface ReleaseTagModule {
  releaseTagProblems(tag: string, sources: { version: string; gatewayVersion: string; changelog: string }): string[];
}

interface WorkflowStep {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}

const REPOSITORY = 'git+https://github.com/leadchat/n8n-nodes-leadchat.git';
const LICENSE = readFileSync(path.join(PACKAGE_ROOT, 'LICENSE'), 'utf8');

/** A tarball unpacked: its file list, and its files' text. */
class Unpacked {
  readonly files: string[];
  constructor(
    private readonly dir: string,
    tarball: string,
  ) {
    mkdirSync(dir);
    execFileSync('tar', ['-xzf', tarball, '-C', dir]);
    this.files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((file) => file.replace(/^package\//, ''));
  }
  read(file: string): string {
    return readFileSync(path.join(this.dir, 'package', file), 'utf8');
  }
  get manifest(): Manifest {
    return JSON.parse(this.read('package.json')) as Manifest;
  }
}

describe('the published packages', () => {
  let work: string;
  let n8n: Unpacked;
  let gateway: Unpacked;

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'leadchat-package-test-'));
    const { packPackages } = (await import(path.join(PACKAGE_ROOT, 'scripts/pack-packages.mjs'))) as {
      packPackages(dir: string): { n8n: string; gateway: string };
    };
    const tarballs = packPackages(path.join(work, 'tarballs'));
    n8n = new Unpacked(path.join(work, 'n8n'), tarballs.n8n);
    gateway = new Unpacked(path.join(work, 'gateway'), tarballs.gateway);
  });

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  test('n8n-nodes-leadchat: package.json names the repository, has no workspaces and no main, and keeps strict mode', () => {
    const manifest = n8n.manifest;
    expect(manifest.name).toBe('n8n-nodes-leadchat');
    expect(manifest.workspaces).toBeUndefined();
    expect(manifest.main).toBeUndefined();
    expect(manifest.license).toBe('MIT');
    expect(manifest.repository).toEqual({ type: 'git', url: REPOSITORY });
    expect(manifest.bugs).toEqual({ url: 'https://github.com/leadchat/n8n-nodes-leadchat/issues' });
    expect(manifest.homepage).toBe('https://github.com/leadchat/n8n-nodes-leadchat#readme');
    expect(manifest.n8n?.strict).toBe(true);
    // Everything else in the repository's package.json is published as it is.
    const { workspaces: _workspaces, ...source } = JSON.parse(
      readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8'),
    ) as Manifest;
    expect(manifest).toEqual(source);
  });

  test('n8n-nodes-leadchat: the MIT license, the README and every file n8n loads, nothing else outside dist/', () => {
    expect(n8n.read('LICENSE')).toBe(LICENSE);
    // npm and n8n's community-node page show the package's own README, not the repository's front door.
    expect(n8n.read('README.md')).toBe(readFileSync(path.join(PACKAGE_ROOT, 'nodes/README.md'), 'utf8'));
    expect(n8n.read('README.md')).toMatch(/^# n8n-nodes-leadchat\n[\s\S]*\n## Installation\n[\s\S]*\n## Operations\n/);
    expect(LICENSE).toMatch(/^MIT License\n\nCopyright \(c\) 2026 LeadChat maintainers\n/);
    expect(n8n.files.filter((file) => !file.startsWith('dist/')).sort()).toEqual([
      'LICENSE',
      'README.md',
      'package.json',
    ]);
    const { nodes, credentials } = n8n.manifest.n8n!;
    expect(nodes.length).toBe(2);
    for (const file of [...nodes, ...credentials]) expect(n8n.files).toContain(file);
    // Each node's codex and icons sit beside it, where n8n looks for them.
    for (const node of nodes) expect(n8n.files).toContain(node.replace(/\.js$/, '.json'));
    expect(n8n.files).toEqual(
      expect.arrayContaining(['dist/nodes/LeadChat/leadchat.svg', 'dist/nodes/LeadChat/leadchat.dark.svg']),
    );
  });

  test('leadchat-gateway: package.json names the repository and its directory; the MIT license, the command and the built CLI', () => {
    const manifest = gateway.manifest;
    expect(manifest.name).toBe('leadchat-gateway');
    expect(manifest.repository).toEqual({ type: 'git', url: REPOSITORY, directory: 'gateway' });
    expect(manifest.bugs).toEqual({ url: 'https://github.com/leadchat/n8n-nodes-leadchat/issues' });
    expect(manifest.homepage).toBe('https://github.com/leadchat/n8n-nodes-leadchat#readme');
    expect(manifest.workspaces).toBeUndefined();
    expect(manifest.main).toBeUndefined();
    expect(gateway.read('LICENSE')).toBe(LICENSE);
    expect(gateway.read('README.md')).toBe(readFileSync(path.join(PACKAGE_ROOT, 'gateway/README.md'), 'utf8'));
    expect(gateway.files).toContain(manifest.bin!['leadchat-gateway']!.replace(/^\.\//, ''));
    expect(gateway.files).toContain('dist/cli/main.js');
    expect(gateway.files.filter((file) => file.startsWith('dist/bench/'))).toEqual([]);
  });
});

describe('the release', () => {
  const workflow = parse(readFileSync(path.join(PACKAGE_ROOT, '.github/workflows/release.yml'), 'utf8')) as {
    on: { push: { tags: string[] } };
    jobs: Record<
      string,
      { 'runs-on': string; container?: string; permissions: Record<string, string>; steps: WorkflowStep[] }
    >;
  };

  test('the workflow runs on a version tag, on Ubuntu with Node 24, allowed to sign provenance and to read only', () => {
    expect(workflow.on).toEqual({ push: { tags: ['v*'] } });
    const [job, ...others] = Object.values(workflow.jobs);
    expect(others).toEqual([]);
    expect(job!['runs-on']).toBe('ubuntu-latest');
    expect(job!.container).toMatch(/^node:24(\.|-|$)/);
    expect(job!.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
  });

  test('the workflow checks the tag, runs npm ci and npm test, then publishes both packages with provenance', () => {
    const steps = Object.values(workflow.jobs)[0]!.steps;
    const at = (pattern: RegExp) => steps.findIndex((step) => pattern.test(step.run ?? ''));
    const order = [/check-release-tag\.mjs "\$GITHUB_REF_NAME"/, /^npm ci$/, /^npm test$/, /npm publish/].map(at);
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(steps[0]!.uses).toMatch(/^actions\/checkout@/);
    const publish = steps[order[3]!]!;
    expect(publish.env).toEqual({ NPM_TOKEN: '${{ secrets.NPM_TOKEN }}' });
    const published = [...publish.run!.matchAll(/^\s*publish (\S+)$/gm)].map((match) => match[1]);
    expect(published).toEqual(['n8n-nodes-leadchat', 'leadchat-gateway']);
    expect(publish.run).toContain('npm publish "$RUNNER_TEMP/packages/$1-$version.tgz" --provenance --access public');
    expect(publish.run).toContain('node scripts/pack-packages.mjs "$RUNNER_TEMP/packages"');
  });

  test('the tag check accepts v<version> of both packages with a changelog entry, and refuses anything else', async () => {
    const { releaseTagProblems } = (await import(
      path.join(PACKAGE_ROOT, 'scripts/check-release-tag.mjs')
    )) as ReleaseTagModule;
    const changelog =
      '# Changelog\n\n## Unreleased\n\n- 1.3.0 will fix it.\n\n## 1.2.3 — 2026-12-01\n\n- Fixed.\n\n### 1.3.0\n';
    expect(releaseTagProblems('v1.2.3', { version: '1.2.3', gatewayVersion: '1.2.3', changelog })).toEqual([]);
    expect(releaseTagProblems('v1.2.3', { version: '1.2.3', gatewayVersion: '1.2.2', changelog })).toEqual([
      'the tag v1.2.3 is not v1.2.2, the version of leadchat-gateway (gateway/package.json)',
    ]);
    expect(releaseTagProblems('1.2.3', { version: '1.2.3', gatewayVersion: '1.2.3', changelog })).toHaveLength(2);
    // Only an entry's heading, for exactly this version, counts.
    expect(releaseTagProblems('v1.3.0', { version: '1.3.0', gatewayVersion: '1.3.0', changelog })).toEqual([
      'CHANGELOG.md has no "## 1.3.0" entry',
    ]);
    expect(
      releaseTagProblems('v1.2.3', {
        version: '1.2.3',
        gatewayVersion: '1.2.3',
        changelog: changelog.replace('1.2.3 —', '1.2.30 —'),
      }),
    ).toEqual(['CHANGELOG.md has no "## 1.2.3" entry']);
  });

  test('the tag check refuses, on this repository, a tag that is not its version, with exit code 1', () => {
    const { version } = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as Manifest;
    const run = spawnSync(process.execPath, ['scripts/check-release-tag.mjs', 'v999.0.0'], {
      cwd: PACKAGE_ROOT,
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      `the tag v999.0.0 is not v${version}, the version of n8n-nodes-leadchat (package.json)`,
    );
    expect(run.stderr).toContain('leadchat-gateway (gateway/package.json)');
  });
});
