/**
 * The search index over one campaign's knowledge (MiniSearch): each FAQ is a document with a question and an answer
 * field, each resource a document with a resource field. MiniSearch ranks with BM25+; the question field is boosted
 * (1.5 against 1 for the answer), because customers paraphrase an FAQ's question more often than its answer.
 *
 * Terms come from text.ts on both sides. A message term the knowledge does not contain is taken for a typo and may
 * meet a document term within a small edit distance (one edit from 5 characters, two from 8, three from 11), so
 * "whitning" still meets "whiten"; a term the knowledge contains, a concept or a synonym-list word ("appt") is
 * matched exactly only. Prefix matching stays off: on stems it mostly adds noise ("car" → "card").
 *
 * Besides BM25, each hit says how much of the message it covers. Each unit of the message weighs the inverse document
 * frequency, over the FAQs, of its most specific term; a word no FAQ uses weighs `unknownWeight` times the most (it
 * may be the crux of an off-topic question, or only chatter around a good one). A unit is covered when one of its
 * terms matched the document: fully if exactly, `fuzzyCredit` if fuzzily, and never for more than the matching term's
 * own weight (a unit met only through a concept that many FAQs share earns little).
 */
import MiniSearch, { type SearchResult } from 'minisearch';
import type { Analyzer, Unit } from './text.js';
import { CONCEPT_MARK } from './text.js';

export interface FaqEntry {
  question: string;
  answer: string;
}

interface Doc {
  id: string;
  question?: string;
  answer?: string;
  resource?: string;
}

export interface Hit {
  kind: 'faq' | 'resource';
  /** Position in the campaign's faqs or resources list. */
  index: number;
  score: number;
  /** Share of the message's weight this document covers, 0..1. */
  coverage: number;
  /**
   * Weight of the message's units this document matches exactly (not fuzzily), in units of the weight of a word
   * only one FAQ uses: 1 means about one FAQ-specific word matched as written. Scaled so, it reads the same
   * whatever the number of FAQs.
   */
  exact: number;
}

export interface RetrievalSettings {
  questionBoost: number;
  answerBoost: number;
  resourceBoost: number;
  fuzzyWeight: number;
  fuzzyCredit: number;
  unknownWeight: number;
}

/** A term that exactly one FAQ uses: the yardstick of `Hit.exact`. */
const SPECIFIC = '\u0000specific';

export class KnowledgeIndex {
  private readonly mini: MiniSearch<Doc>;
  private readonly df = new Map<string, number>();
  /** Every term of every document: a query term found here is spelled right and is never matched fuzzily. */
  private readonly vocabulary = new Set<string>();
  private readonly faqDocs: number;

  constructor(
    faqs: readonly FaqEntry[],
    resources: readonly string[],
    analyzer: Analyzer,
    private readonly settings: RetrievalSettings,
  ) {
    const termsOf = (text: string) => {
      const terms = analyzer.units(text).flatMap((u) => u.terms);
      for (const term of terms) this.vocabulary.add(term);
      return terms;
    };
    this.mini = new MiniSearch<Doc>({
      fields: ['question', 'answer', 'resource'],
      tokenize: termsOf,
      processTerm: (term) => term,
    });
    const docs: Doc[] = [];
    faqs.forEach((faq, i) => {
      if (!faq.question.trim() || !faq.answer.trim()) return;
      docs.push({ id: `f${i}`, question: faq.question, answer: faq.answer });
      for (const term of new Set([...termsOf(faq.question), ...termsOf(faq.answer)])) this.df.set(term, (this.df.get(term) ?? 0) + 1);
    });
    this.faqDocs = docs.length;
    resources.forEach((text, i) => {
      if (text.trim()) docs.push({ id: `r${i}`, resource: text });
    });
    this.mini.addAll(docs);
  }

  /** Number of FAQs that can answer (both question and answer given). */
  get faqCount(): number {
    return this.faqDocs;
  }

  /** BM25-style inverse document frequency over the FAQs; a term no FAQ uses gets the highest. */
  idf(term: string): number {
    const n = this.faqDocs;
    const df = term === SPECIFIC ? 1 : (this.df.get(term) ?? 0);
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** Typos only: a term the knowledge does not contain, of 5 characters or more, never a concept. */
  private fuzziness(term: string): number | false {
    if (term.startsWith(CONCEPT_MARK) || term.length < 5 || this.vocabulary.has(term)) return false;
    return term.length >= 11 ? 3 : term.length >= 8 ? 2 : 1;
  }

  /** The unit's weight: its most specific term's idf. */
  private weight(unit: Unit): number {
    const known = unit.terms.some((t) => this.df.has(t));
    return Math.max(...unit.terms.map((t) => this.idf(t))) * (known ? 1 : this.settings.unknownWeight);
  }

  /** Documents matching any of the units, best first. */
  search(units: readonly Unit[]): Hit[] {
    const terms = [...new Set(units.flatMap((u) => u.terms))];
    if (!terms.length) return [];
    const { questionBoost, answerBoost, resourceBoost, fuzzyWeight } = this.settings;
    // A word of a synonym group is a word we know, however short: "appt" is not a typo of "apple".
    const known = new Set(units.filter((u) => u.terms.some((t) => t.startsWith(CONCEPT_MARK))).flatMap((u) => u.terms));
    const results = this.mini.search(terms.join(' '), {
      tokenize: (text) => text.split(' '),
      processTerm: (term) => term,
      boost: { question: questionBoost, answer: answerBoost, resource: resourceBoost },
      fuzzy: (term) => !known.has(term) && this.fuzziness(term),
      weights: { fuzzy: fuzzyWeight, prefix: 0 },
      combineWith: 'OR',
    });
    const total = units.reduce((sum, u) => sum + this.weight(u), 0);
    return results.map((r) => {
      const { covered, exactWeight } = this.covered(units, r);
      return {
        kind: String(r.id).startsWith('f') ? 'faq' : 'resource',
        index: Number(String(r.id).slice(1)),
        score: r.score,
        coverage: total > 0 ? covered / total : 0,
        exact: exactWeight / this.idf(SPECIFIC),
      };
    });
  }

  private covered(units: readonly Unit[], result: SearchResult): { covered: number; exactWeight: number } {
    const exact = new Set(result.terms);
    const matched = new Set(result.queryTerms);
    let covered = 0;
    let exactWeight = 0;
    for (const unit of units) {
      const weight = this.weight(unit);
      // A unit met only through a common term (a concept many FAQs share) earns that term's weight, not the unit's.
      const credit = (t: string) => (exact.has(t) ? 1 : matched.has(t) ? this.settings.fuzzyCredit : 0) * Math.min(weight, this.idf(t));
      covered += Math.max(0, ...unit.terms.map(credit));
      exactWeight += Math.max(0, ...unit.terms.map((t) => (exact.has(t) ? Math.min(weight, this.idf(t)) : 0)));
    }
    return { covered, exactWeight };
  }
}
