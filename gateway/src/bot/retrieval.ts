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
 * frequency, over the FAQs, of its most specific term among those the FAQs use (a synonym the FAQs never use weighs
 * what its concept weighs); a unit none of whose terms any FAQ uses weighs `unknownWeight` times the most (it may be
 * the crux of an off-topic question, or only chatter around a good one). A unit is covered when one of its terms
 * matched the document: fully if exactly, `fuzzyCredit` if fuzzily, and never for more than the matching term's own
 * weight (a unit met only through a concept that many FAQs share earns little). `focus` is the same share with units
 * matched only in an FAQ's answer counted at `answerCredit`.
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
   * Coverage with a unit matched only in an FAQ's answer counted at `answerCredit`: customers paraphrase an FAQ's
   * question, while answers mention many things in passing. Equals `coverage` for a resource.
   */
  focus: number;
  /** Coverage by the FAQ's question alone (0 for a resource): how much of the message the FAQ's question matches. */
  questionCoverage: number;
  /**
   * Weight of the message's units this document matches exactly (not fuzzily), in units of the weight of a word
   * only one FAQ uses: 1 means about one FAQ-specific word matched as written. Scaled so, it reads the same
   * whatever the number of FAQs. A term found in this FAQ's question weighs at least its idf over the questions.
   */
  exact: number;
  /** Positions, among the message's units, of those this document covers at all. */
  matched: number[];
}

export interface RetrievalSettings {
  questionBoost: number;
  answerBoost: number;
  resourceBoost: number;
  fuzzyWeight: number;
  fuzzyCredit: number;
  unknownWeight: number;
  answerCredit: number;
  /** Credit of a match through a word of related meaning rather than the message's own word. */
  relatedCredit: number;
}

/** An answer as compared with others: FAQs whose answers differ only in case or spacing give the same answer. */
export const answerKey = (answer: string): string => answer.trim().replace(/\s+/g, ' ').toLowerCase();

/** A term that exactly one FAQ uses: the yardstick of `Hit.exact`. */
const SPECIFIC = '\u0000specific';

export class KnowledgeIndex {
  private readonly mini: MiniSearch<Doc>;
  private readonly df = new Map<string, number>();
  /** Number of FAQs whose question uses the term. */
  private readonly questionDf = new Map<string, number>();
  /** Every term of every document: a query term found here is spelled right and is never matched fuzzily. */
  private readonly vocabulary = new Set<string>();
  /** Number of distinct answers: the document count of the idf. */
  private readonly faqDocs: number;
  /** Number of FAQs that can answer (both question and answer given). */
  readonly faqCount: number;

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
    // FAQs that give the same answer are one topic asked in several wordings: they count as one document for the
    // idf, or saving a new wording of a question as an FAQ would make its own words look common.
    const topics = new Map<string, { question: Set<string>; all: Set<string> }>();
    faqs.forEach((faq, i) => {
      if (!faq.question.trim() || !faq.answer.trim()) return;
      docs.push({ id: `f${i}`, question: faq.question, answer: faq.answer });
      const key = answerKey(faq.answer);
      const topic = topics.get(key) ?? { question: new Set<string>(), all: new Set(termsOf(faq.answer)) };
      for (const term of termsOf(faq.question)) {
        topic.question.add(term);
        topic.all.add(term);
      }
      topics.set(key, topic);
    });
    for (const topic of topics.values()) {
      for (const term of topic.question) this.questionDf.set(term, (this.questionDf.get(term) ?? 0) + 1);
      for (const term of topic.all) this.df.set(term, (this.df.get(term) ?? 0) + 1);
    }
    this.faqCount = docs.length;
    this.faqDocs = topics.size;
    resources.forEach((text, i) => {
      if (text.trim()) docs.push({ id: `r${i}`, resource: text });
    });
    this.mini.addAll(docs);
  }

  /** BM25-style inverse document frequency over the FAQs; a term no FAQ uses gets the highest. */
  idf(term: string): number {
    const n = this.faqDocs;
    const df = term === SPECIFIC ? 1 : (this.df.get(term) ?? 0);
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** The idf over the FAQs' questions alone: a concept many answers mention may still be in one question only. */
  questionIdf(term: string): number {
    const n = this.faqDocs;
    const df = this.questionDf.get(term) ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** Typos only: a term the knowledge does not contain, of 5 characters or more, never a concept. */
  private fuzziness(term: string): number | false {
    if (term.startsWith(CONCEPT_MARK) || term.length < 5 || this.vocabulary.has(term)) return false;
    return term.length >= 11 ? 3 : term.length >= 8 ? 2 : 1;
  }

  /**
   * The unit's weight: its most specific term's idf among the terms the FAQs use, so that a word the FAQs never use
   * but whose concept they do ("appt" for "appointment") weighs what the concept weighs. A unit none of whose terms
   * the FAQs use weighs `unknownWeight` times the most.
   */
  weight(unit: Unit): number {
    const known = unit.terms.filter((t) => this.df.has(t));
    if (!known.length) return this.idf('') * this.settings.unknownWeight;
    return Math.max(...known.map((t) => this.idf(t)));
  }

  /**
   * Share of the FAQs (topics) that use the unit's most specific term: near 1 for the words that name the business
   * itself ("class" at a yoga studio, "permis" at a driving school), 0 for a unit no FAQ uses.
   */
  share(unit: Unit): number {
    const known = unit.terms.filter((t) => this.df.has(t));
    if (!known.length || !this.faqDocs) return 0;
    return Math.min(...known.map((t) => this.df.get(t)!)) / this.faqDocs;
  }

  /** Whether any FAQ uses the term. */
  knows(term: string): boolean {
    return this.df.has(term);
  }

  /** Documents matching any of the units, best first. */
  search(units: readonly Unit[]): Hit[] {
    const terms = [...new Set(units.flatMap((u) => [...u.terms, ...(u.related ?? [])]))];
    if (!terms.length) return [];
    const { questionBoost, answerBoost, resourceBoost, fuzzyWeight } = this.settings;
    // A word of a synonym group is a word we know, however short: "appt" is not a typo of "apple".
    const known = new Set([
      ...units.filter((u) => u.terms.some((t) => t.startsWith(CONCEPT_MARK))).flatMap((u) => u.terms),
      ...units.flatMap((u) => u.related ?? []),
    ]);
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
      const { covered, focused, asked, exactWeight, matched } = this.covered(units, r);
      return {
        kind: String(r.id).startsWith('f') ? 'faq' : 'resource',
        index: Number(String(r.id).slice(1)),
        score: r.score,
        coverage: total > 0 ? covered / total : 0,
        focus: total > 0 ? focused / total : 0,
        questionCoverage: total > 0 ? asked / total : 0,
        exact: exactWeight / this.idf(SPECIFIC),
        matched,
      };
    });
  }

  private covered(
    units: readonly Unit[],
    result: SearchResult,
  ): { covered: number; focused: number; asked: number; exactWeight: number; matched: number[] } {
    const exact = new Set(result.terms);
    const matched = new Set(result.queryTerms);
    const inQuestion = (term: string) => (result.match[term] ?? []).includes('question');
    // A fuzzy match's document term is one no query term spells; it counts as in the question if any such term is.
    const fuzzyInQuestion = result.terms.some((t) => !matched.has(t) && inQuestion(t));
    const questionMatch = (t: string) => (exact.has(t) ? inQuestion(t) : fuzzyInQuestion);
    const faq = String(result.id).startsWith('f');
    let covered = 0;
    let focused = 0;
    let asked = 0;
    let exactWeight = 0;
    const matchedUnits: number[] = [];
    units.forEach((unit, position) => {
      const weight = this.weight(unit);
      // A unit met only through a common term (a concept many FAQs share) earns that term's weight, not the unit's.
      const credit = (t: string) =>
        (exact.has(t) ? 1 : matched.has(t) ? this.settings.fuzzyCredit : 0) * Math.min(weight, this.idf(t));
      const focus = (t: string) => credit(t) * (!faq || questionMatch(t) ? 1 : this.settings.answerCredit);
      const ask = (t: string) => (faq && questionMatch(t) ? credit(t) : 0);
      // A term in this FAQ's question and in no other FAQ's question singles the FAQ out, however many answers use it.
      const exactCredit = (t: string) =>
        !exact.has(t)
          ? 0
          : Math.max(
              Math.min(weight, this.idf(t)),
              faq && inQuestion(t) ? Math.min(this.idf(SPECIFIC), this.questionIdf(t)) : 0,
            );
      // A word met only through a related word (meaning.ts) earns `relatedCredit` of what the related word would.
      const related = unit.related ?? [];
      const { relatedCredit } = this.settings;
      const best = (value: (t: string) => number) =>
        Math.max(0, ...unit.terms.map(value), ...related.map((t) => relatedCredit * value(t)));
      const unitCredit = best(credit);
      if (unitCredit > 0) matchedUnits.push(position);
      covered += unitCredit;
      focused += best(focus);
      asked += best(ask);
      exactWeight += best(exactCredit);
    });
    return { covered, focused, asked, exactWeight, matched: matchedUnits };
  }
}
