import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The documentation is split by reader (README.md, gateway/README.md, docs/…), so readers follow links from one file
 * to another: every link between them must land on a file and a heading that exist. The published READMEs
 * (nodes/README.md, gateway/README.md) link to the others by their address on GitHub, which is checked the same way.
 */

const ROOT = path.resolve(__dirname, '../..');
const REPOSITORY = 'https://github.com/leadchat/n8n-nodes-leadchat/';

/**
 * The guide to the test tiers is written with the tiers themselves: until it is in the tree, links to it are let
 * through; once it is, they are checked as every other.
 */
const WRITTEN_WITH_THE_TIERS = 'docs/testing.md';

/** The repository's markdown files, as a fresh clone has them (and new ones not yet committed). */
const DOCUMENTS = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.md'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean)
  .sort();

/** A file's text outside fenced code blocks, where a link is a link. */
function prose(file: string): string {
  return readFileSync(path.join(ROOT, file), 'utf8').replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
}

/** The anchors GitHub gives a file's headings: lowercased, punctuation and symbols dropped, a repeat numbered. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of prose(file).matchAll(/^#{1,6} (.*)$/gm)) {
    const text = heading!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = text
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const times = seen.get(slug) ?? 0;
    seen.set(slug, times + 1);
    found.add(times === 0 ? slug : `${slug}-${times}`);
  }
  return found;
}

interface Link {
  from: string;
  target: string;
}

/** Every inline link of a file to a file of this repository: relative, or its address on GitHub. */
function links(file: string): Link[] {
  const text = prose(file).replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target]) => target!)
    .filter(
      (target) =>
        !/^[a-z]+:/.test(target) ||
        (target.startsWith(REPOSITORY) && /^(blob|tree)\//.test(target.slice(REPOSITORY.length))),
    )
    .map((target) => ({ from: file, target }));
}

/** Why a link does not resolve, or undefined when it does. */
function problem({ from, target }: Link): string | undefined {
  const [address, anchor] = target.split('#') as [string, string | undefined];
  let file: string;
  if (address.startsWith(REPOSITORY)) {
    const place = /^(?:blob|tree)\/main\/(.*)$/.exec(address.slice(REPOSITORY.length));
    if (!place) return 'not a file of the main branch';
    file = place[1]!.replace(/\/$/, '');
  } else {
    file = address === '' ? from : path.posix.normalize(path.posix.join(path.posix.dirname(from), address));
  }
  if (file === WRITTEN_WITH_THE_TIERS && !existsSync(path.join(ROOT, file))) return undefined;
  if (!existsSync(path.join(ROOT, file))) return `no file ${file}`;
  if (anchor === undefined) return undefined;
  if (statSync(path.join(ROOT, file)).isDirectory() || !file.endsWith('.md')) return `${file} has no headings`;
  return anchors(file).has(anchor) ? undefined : `${file} has no heading #${anchor}`;
}

test('the documentation is split by reader: each front door is there, and every markdown file is linked from one', () => {
  expect(DOCUMENTS).toEqual(
    expect.arrayContaining([
      'README.md',
      'CHANGELOG.md',
      'CONTRIBUTING.md',
      'gateway/README.md',
      'nodes/README.md',
      'docs/api.md',
      'docs/operations.md',
      'docs/console.md',
      'docs/n8n.md',
    ]),
  );
  const linked = new Set(
    DOCUMENTS.flatMap(links)
      .filter((link) => problem(link) === undefined)
      .map(({ from, target }) => {
        const address = target.split('#')[0]!;
        if (address.startsWith(REPOSITORY)) return address.replace(/^.*?\/main\//, '');
        return path.posix.normalize(path.posix.join(path.posix.dirname(from), address));
      }),
  );
  // The code's own notes (a folder's README) are read beside the code; every document a reader needs is reached.
  const unreached = DOCUMENTS.filter((file) => file !== 'README.md' && !/^gateway\/(src|eval)\//.test(file));
  expect(unreached.filter((file) => !linked.has(file))).toEqual([]);
});

test('every link between the markdown files points at a file and a heading that exist', () => {
  const all = DOCUMENTS.flatMap(links);
  // The files link to one another, across folders and to headings.
  expect(all.filter((link) => link.target.includes('#') && link.target.includes('/')).length).toBeGreaterThan(10);
  const broken = all.flatMap((link) => {
    const why = problem(link);
    return why ? [`${link.from}: (${link.target}) ${why}`] : [];
  });
  expect(broken).toEqual([]);
});

test('the published READMEs link to the other files by their address on GitHub, which npm and n8n can open', () => {
  const relative = ['nodes/README.md', 'gateway/README.md'].flatMap((file) =>
    links(file)
      .filter(({ target }) => !target.startsWith('#') && !target.startsWith(REPOSITORY))
      .map(({ from, target }) => `${from}: (${target})`),
  );
  expect(relative).toEqual([]);
});

test('the link check finds what is broken: a missing file, a missing heading, a heading of a code block', () => {
  expect(problem({ from: 'README.md', target: 'docs/nowhere.md' })).toBe('no file docs/nowhere.md');
  expect(problem({ from: 'docs/api.md', target: '../gateway/README.md#no-such-heading' })).toBe(
    'gateway/README.md has no heading #no-such-heading',
  );
  // "# 1. an empty database" is a shell comment in gateway/README.md's Scale out, not a heading.
  expect(problem({ from: 'README.md', target: 'gateway/README.md#1-an-empty-database' })).toBe(
    'gateway/README.md has no heading #1-an-empty-database',
  );
  expect(problem({ from: 'nodes/README.md', target: `${REPOSITORY}blob/main/docs/api.md#the-team` })).toBeUndefined();
  expect(problem({ from: 'README.md', target: 'gateway/README.md#configuration' })).toBeUndefined();
  expect(problem({ from: 'CONTRIBUTING.md', target: 'README.md#set-up-nodejs--2019' })).toBeUndefined();
});
