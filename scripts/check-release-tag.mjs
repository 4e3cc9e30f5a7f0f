#!/usr/bin/env node
/**
 * The release workflow's first check: `node scripts/check-release-tag.mjs v1.2.3` refuses a tag that is not
 * `v<version>` of both packages (the n8n package and the gateway are released together, with one version), and a
 * version that CHANGELOG.md has no `## 1.2.3` entry for.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Why `tag` cannot be released from these package versions and changelog, or nothing when it can. */
export function releaseTagProblems(tag, { version, gatewayVersion, changelog }) {
  const problems = [];
  if (tag !== `v${version}`)
    problems.push(`the tag ${tag} is not v${version}, the version of n8n-nodes-leadchat (package.json)`);
  if (tag !== `v${gatewayVersion}`) {
    problems.push(`the tag ${tag} is not v${gatewayVersion}, the version of leadchat-gateway (gateway/package.json)`);
  }
  const released = tag.replace(/^v/, '');
  const entry = new RegExp(`^## ${released.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s|$)`, 'm');
  if (!entry.test(changelog)) problems.push(`CHANGELOG.md has no "## ${released}" entry`);
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tag = process.argv[2];
  if (!tag) {
    process.stderr.write('usage: node scripts/check-release-tag.mjs v<version>\n');
    process.exit(2);
  }
  const read = (file) => readFileSync(path.join(ROOT, file), 'utf8');
  const problems = releaseTagProblems(tag, {
    version: JSON.parse(read('package.json')).version,
    gatewayVersion: JSON.parse(read('gateway/package.json')).version,
    changelog: read('CHANGELOG.md'),
  });
  if (problems.length > 0) {
    process.stderr.write(`cannot release ${tag}:\n${problems.map((problem) => `- ${problem}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(`${tag}: both packages are at this version and the changelog has its entry\n`);
}
