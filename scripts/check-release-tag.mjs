#!/usr/bin/env node
/**
 * The release workflow's first check: `node scripts/check-release-tag.mjs v1.2.3` refuses a tag that is not
 * `v<version>` of both packages (the n8n package and the gateway are released together, with one version), and a
 * version that README.md's "## Changelog" has no `### 1.2.3` entry for.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The text of README's "## Changelog" section. */
function changelog(readme) {
  const start = readme.search(/^## Changelog$/m);
  if (start < 0) return '';
  const rest = readme.slice(start + 1);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Why `tag` cannot be released from these package versions and README, or nothing when it can. */
export function releaseTagProblems(tag, { version, gatewayVersion, readme }) {
  const problems = [];
  if (tag !== `v${version}`)
    problems.push(`the tag ${tag} is not v${version}, the version of n8n-nodes-leadchat (package.json)`);
  if (tag !== `v${gatewayVersion}`) {
    problems.push(`the tag ${tag} is not v${gatewayVersion}, the version of leadchat-gateway (gateway/package.json)`);
  }
  const released = tag.replace(/^v/, '');
  const entry = new RegExp(`^### ${released.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s|$)`, 'm');
  if (!entry.test(changelog(readme))) problems.push(`README.md's "## Changelog" has no "### ${released}" entry`);
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
    readme: read('README.md'),
  });
  if (problems.length > 0) {
    process.stderr.write(`cannot release ${tag}:\n${problems.map((problem) => `- ${problem}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(`${tag}: both packages are at this version and the changelog has its entry\n`);
}
