/**
 * The offline FAQ bot: answers a customer's message with the answer of one of the campaign's FAQs when it is
 * confident that FAQ answers it, and hands off to a person otherwise. No clock, no network; the only I/O is reading
 * WordNet's files for English words the FAQs do not use (meaning.ts).
 * `createFaqBot` builds the index once per campaign (per change of its bot settings); `answer` runs per message and
 * takes well under a millisecond on the evaluation businesses.
 *
 * Steps for a message (at most MAX_MESSAGE_LENGTH characters are read):
 * 1. Small talk ("hi", "thanks!", "ok 👍", smalltalk.ts) → `{kind: 'smalltalk', act}`: nothing to answer and no
 *    reason to page a person; the engine decides (stays silent after thanks, greets back...).
 * 2. No FAQ with both a question and an answer → hand-off, reason `no_knowledge`.
 * 3. Text analysis (text.ts: stop words, Snowball stems, synonym concepts from synonyms.ts, multi-word phrases such
 *    as "how much" or "dar de baja"; in English, a word no FAQ uses also gets the terms of its WordNet synonyms that
 *    the FAQs use, meaning.ts, credited at 0.8, `relatedCredit`) and search (retrieval.ts: MiniSearch BM25+ over FAQ question + answer and over
 *    resources, fuzzy for typos).
 * 4. Ranking of the FAQs: coverage + 0.5 × (BM25 score / best BM25 score). Coverage (the share of the message's
 *    idf-weighted words the FAQ matches) decides; BM25, which rewards matches in the short question field, breaks
 *    near ties.
 * 5. Answer with the first FAQ when all hold, otherwise hand off with reason `not_confident` and the best candidate:
 *    - focus >= 0.2 (`minConfidence`): the FAQ matches a fair share of what the message says, a word matched only in
 *      its answer counting 0.4 (`answerCredit`), since customers paraphrase an FAQ's question while answers mention
 *      many things in passing;
 *    - the FAQ's question matches some of the message, or else its answer covers at least 0.6 of it
 *      (`minAnswerOnlyCoverage`): an FAQ found only through a word its answer mentions in passing is a guess;
 *    - exact >= 0.85 (`minExact`): about one FAQ-specific word matched as written, not only fuzzily or through a
 *      synonym concept many FAQs share (stops "hosting" → "hosted in the EU" type answers to one vague word); a
 *      concept that many answers mention but only this FAQ's question asks about counts as specific ("appt" → "How
 *      do I book an appointment?" though three other answers mention appointments);
 *    - the ranking value leads the best FAQ with a different answer by >= 0.12 (`minMargin`): two FAQs matching
 *      alike is a coin toss, while FAQs sharing an answer (an owner's new wording of a question) do not compete;
 *    - no resource covers the message by more than 0.3 over the FAQ (`resourceMargin`).
 *    The reply's `confidence` is the FAQ's focus. When only the lead is missing and the second FAQ passes the first
 *    two tests as well, the bot asks which of the two the contact means (`clarify`) rather than guess or hand off;
 *    `choose` reads the contact's answer ("2", "the first", words of one of the two questions).
 * 6. The subject check (subject.ts): an FAQ that passes all of the above but meets only one word of the message
 *    (`thinMatch`), not counting words that 40 % of the FAQs or more use (`genericShare`: they name the business,
 *    "class" at a yoga studio), while the message names a subject no FAQ covers ("do you repair motorcycles?" to a
 *    garage whose FAQs speak of cars; "is there a desktop app for linux?" against "Is there a mobile app?"; "do you
 *    teach martial arts classes?" against "Do you teach pilates?"), is not given: the bot
 *    asks whether the contact means it ("Is this your question: Is there a mobile app?", `clarify` with one option, which
 *    `choose` takes a "yes" to), or hands off naming the resource that mentions that subject.
 *
 * Resources: the bot never answers with a resource (it only speaks the business's own FAQ answers), but resources are
 * indexed beside the FAQs. A message that a resource covers clearly better than any FAQ ("is the clinic wheelchair
 * accessible?" when only a resource mentions the wheelchair access) is about something the FAQs do not answer: the
 * bot hands off and names that resource (`resourceIndex`) so the person, or a later LLM bot, can use it.
 * `relevant` gives an LLM provider the same ranking: the FAQs and resources covering at least 15 % of the message.
 *
 * How the numbers were chosen (gateway/eval/faq-bot, `npm run eval:bot`; the eval set's README lists the splits).
 * Only the "tuning" businesses were read to change the method and the synonym tables: the first four (dental clinic,
 * furniture shop, software subscription, Spanish gym), and from the fourth round on an English yoga studio and a
 * French driving school, written before the bot was run on them because the first four had almost no wrong answer
 * left to learn from. The synonym tables hold general customer-service words (price, hours, booking, cancelling,
 * refunds, location and transport, children, pets, Wi-Fi, online, accessibility...; no word of a single question).
 * The weights and thresholds are precision first: leave-one-business-out on the first four, each setting of
 * unknownWeight, minConfidence, minMargin (and minAnswerOnlyCoverage) scored on three businesses, the most correct
 * answers at no more than 2 % wrong over all questions kept and scored on the fourth (cross-validated 75.6 % correct,
 * 2.2 % wrong); the values above are that selection run on all four. 2 %, not the target's 3 %, because businesses
 * the tables were not written for are answered wrongly far more often. A grid over the same settings on all six
 * tuning businesses finds none with fewer than five wrong answers (these values give six, and the one with five
 * four fewer right ones): what is left is not a matter of thresholds.
 * The subject check's settings were chosen on the six tuning businesses. There, `thinMatch` 1 turns 12 right
 * answers into "Do you mean …?" questions (nearly all offering the right FAQ) and removes 5 of the 11 wrong answers;
 * 2 would turn 20 more into questions for one more wrong answer removed. `genericShare` 0.4 removes 2 wrong answers
 * for 2 right ones; times counting as subjects, and phrase words not, each gain one without a loss.
 *
 * The fifth round added two tuning businesses (a wedding photographer, a Spanish pet groomer: the six had too few
 * wrong answers left to tell a cause) and two rules chosen on the eight tuning businesses: a `rival` whose question
 * meets more of the message than the leader's (`rivalFocusLead` 0) is offered beside it, 5 wrong answers fewer for 4
 * right ones; an FAQ covering under `thinCoverage` 0.5 of the message on less than `thinExact` 1.57 specific words is
 * asked about, 3 off-topic answers fewer for 14 right ones turned into questions that mostly offer them.
 *
 * Measured (npm run eval:bot): tuning (eight businesses) 50.5 % correct, 2.0 % wrong overall; held-out (eight) 43.2 %
 * correct, 2.0 % wrong overall, 15.5 % of its answerable questions asked about, most offering the right FAQ; the two
 * held-out businesses written last (a plumber, a Brazilian coworking space) 36.8 % correct, 2.2 % wrong. The six
 * older held-out businesses went from 50.5 % correct and 5.8 % wrong to 45.4 % and 1.9 %. The wrong-answer targets
 * are met; 75 % correct is not. What remains wrong is mostly a question that meets a neighbouring FAQ on most of its
 * words ("si no puedo ir tengo que pagar algo?" → how to pay), and most hand-offs need to know what words mean: a
 * bag-of-words matcher with hand-made synonyms does not know what a question asks about, only which words it shares
 * with an FAQ, and its synonym tables fit the businesses they were written beside.
 */
import { analyzerFor, type Unit } from './text.js';
import { relatedWords } from './meaning.js';
import { answerKey, KnowledgeIndex, type FaqEntry, type Hit, type RetrievalSettings } from './retrieval.js';
import { smallTalkAct, type SmallTalkAct } from './smalltalk.js';
import { matchedWords, uncoveredSubjects } from './subject.js';

export type { FaqEntry } from './retrieval.js';
export type { SmallTalkAct } from './smalltalk.js';

/** What the bot knows: the campaign's `bot.faqs`, `bot.resources` and `language`. */
export interface FaqKnowledge {
  faqs: readonly FaqEntry[];
  resources?: readonly string[];
  /** Campaign language (en, es, pt, fr, de, it; "es-MX" reads as es); others get no stemming. Default en. */
  language?: string;
}

export interface FaqCandidate {
  faqIndex: number;
  question: string;
  score: number;
  confidence: number;
}

export type FaqBotReply =
  | { kind: 'answer'; answer: string; faqIndex: number; score: number; confidence: number }
  | { kind: 'smalltalk'; act: SmallTalkAct }
  /**
   * Two FAQs match the message alike, each well: the bot asks which one the contact means (best first). One FAQ
   * matches on a single word while the message names something no FAQ mentions: the bot asks whether it is that one.
   */
  | { kind: 'clarify'; options: [FaqCandidate] | [FaqCandidate, FaqCandidate] }
  | {
      kind: 'handoff';
      reason: 'not_confident' | 'no_knowledge';
      /** The FAQ that came closest, when any matched at all. */
      best?: FaqCandidate;
      /** The resource that covers the message better than any FAQ, when that is why the bot hands off. */
      resourceIndex?: number;
    };

export interface FaqBot {
  answer(message: string): FaqBotReply;
  /**
   * Which of the FAQs the bot offered (`options`, indices, in the order offered) the contact's answer picks: a
   * number ("2"), an ordinal ("the first", "la segunda"), "yes" when one was offered, or words of one option's
   * question and not of the other's.
   * Undefined when the answer picks none (a new question, most likely).
   */
  choose(message: string, options: readonly number[]): number | undefined;
  /**
   * The FAQs and resources most relevant to the message, best first, at most `limit` of each (indices into
   * knowledge.faqs / knowledge.resources); none below a small relevance floor.
   */
  relevant(message: string, limit?: number): { faqs: number[]; resources: number[] };
}

export interface FaqBotSettings extends RetrievalSettings {
  /** Weight of BM25 (relative to the best FAQ's) beside coverage in the ranking. */
  scoreWeight: number;
  minConfidence: number;
  /** Least coverage of the message for an FAQ matched only in its answer. */
  minAnswerOnlyCoverage: number;
  minExact: number;
  minMargin: number;
  resourceMargin: number;
  /** Least coverage of the message for an FAQ or resource to count as relevant at all. */
  relevanceFloor: number;
  /**
   * Most words of the message an FAQ may meet and still be asked about ("Do you mean …?") rather than given, when
   * the message names a subject no FAQ covers (subject.ts); 0 turns the check off.
   */
  thinMatch: number;
  /**
   * Share of the FAQs a word may be used by and still count as a match of its own in the subject check: a word most
   * FAQs use names the business ("class" at a yoga studio), and a message sharing only that with an FAQ shares
   * nothing specific.
   */
  genericShare: number;
  /**
   * How far another FAQ's focus may exceed the leader's before the bot asks which of the two is meant: the ranking
   * (coverage) and focus then disagree on what the message asks.
   */
  rivalFocusLead: number;
  /** Below this coverage of the message, together with less than `thinExact`, an FAQ is asked about, not given. */
  thinCoverage: number;
  thinExact: number;
}

export const DEFAULT_SETTINGS: Readonly<FaqBotSettings> = {
  questionBoost: 1.5,
  answerBoost: 1,
  resourceBoost: 1,
  fuzzyWeight: 0.45,
  fuzzyCredit: 0.8,
  unknownWeight: 0.85,
  answerCredit: 0.4,
  relatedCredit: 0.8,
  scoreWeight: 0.5,
  minConfidence: 0.2,
  minAnswerOnlyCoverage: 0.6,
  minExact: 0.85,
  minMargin: 0.12,
  resourceMargin: 0.3,
  relevanceFloor: 0.15,
  thinMatch: 1,
  genericShare: 0.4,
  rivalFocusLead: 0,
  thinCoverage: 0.5,
  thinExact: 1.57,
};

/** Longer messages are read up to here: the question is almost always near the start, and the cost stays bounded. */
export const MAX_MESSAGE_LENGTH = 2000;

/** What `relevant` returns when the caller gives no limit. */
export const DEFAULT_RELEVANT_LIMIT = 5;

/** Builds the campaign's index once; `answer` is then cheap enough to run on every incoming message. */
export function createFaqBot(knowledge: FaqKnowledge, settings: Partial<FaqBotSettings> = {}): FaqBot {
  const s: FaqBotSettings = { ...DEFAULT_SETTINGS, ...settings };
  const analyzer = analyzerFor(knowledge.language);
  const index = new KnowledgeIndex(knowledge.faqs, knowledge.resources ?? [], analyzer, s);
  const answerKeys = knowledge.faqs.map((f) => answerKey(f.answer));

  /** English words the FAQs do not use get the terms of their synonyms and broader terms that they do use. */
  const withMeaning = (units: Unit[]): Unit[] => {
    if (analyzer.language !== 'en' || !s.relatedCredit) return units;
    return units.map((unit) => {
      if (unit.word.includes(' ') || unit.terms.some((t) => index.knows(t))) return unit;
      const related = relatedWords(unit.word)
        .flatMap((w) => analyzer.units(w).flatMap((u) => u.terms))
        .filter((t) => index.knows(t));
      return related.length ? { ...unit, related: [...new Set(related)] } : unit;
    });
  };

  /**
   * Whether the FAQ's question matches the message at all, or else its answer covers most of the message. An answer
   * mentions many things in passing ("we are closed on public holidays" in an FAQ about emergencies): an FAQ none of
   * whose question words the message uses is the answer only when its answer holds nearly all the message asks.
   */
  const asked = (h: Hit) => h.questionCoverage > 0.01 || h.coverage >= s.minAnswerOnlyCoverage;

  /** Whether an FAQ other than the leader matches well enough to be offered beside it. */
  const passes = (h: Hit) => h.focus >= s.minConfidence && h.exact >= s.minExact && asked(h);

  /** The message's units, its FAQ hits, best first, and its resource hits, best covering first. */
  const rankedHits = (message: string): { units: Unit[]; faqs: RankedHit[]; resources: Hit[] } => {
    const units = withMeaning(analyzer.units(message.slice(0, MAX_MESSAGE_LENGTH)));
    const hits = index.search(units);
    const faqs = hits.filter((h) => h.kind === 'faq');
    const bestScore = Math.max(0, ...faqs.map((h) => h.score));
    const rank = new Map(faqs.map((h) => [h, h.coverage + s.scoreWeight * (h.score / bestScore)]));
    faqs.sort((a, b) => rank.get(b)! - rank.get(a)!);
    const resources = hits.filter((h) => h.kind === 'resource').sort((a, b) => b.coverage - a.coverage);
    return { units, faqs: faqs.map((h) => ({ ...h, rank: rank.get(h)! })), resources };
  };

  const candidate = (h: Hit): FaqCandidate => ({
    faqIndex: h.index,
    question: knowledge.faqs[h.index]!.question,
    score: h.score,
    confidence: h.focus,
  });

  return {
    answer(message) {
      const text = message.slice(0, MAX_MESSAGE_LENGTH);
      const act = smallTalkAct(text, analyzer);
      if (act) return { kind: 'smalltalk', act };
      if (!index.faqCount) return { kind: 'handoff', reason: 'no_knowledge' };

      const { units, faqs, resources } = rankedHits(text);
      const top = faqs[0];
      if (!top) return { kind: 'handoff', reason: 'not_confident' };
      // FAQs that give the same answer do not compete: an owner who saves a new wording of a question as an FAQ
      // repeats its answer, and that must make the bot surer, not unsure which of the two to give.
      const second = faqs.find((h) => answerKeys[h.index] !== answerKeys[top.index]);
      const resource = resources[0];

      const faq = knowledge.faqs[top.index]!;
      const confidence = top.focus;
      const margin = top.rank - (second ? second.rank : 0);
      const resourceWins = resource !== undefined && resource.coverage > top.coverage + s.resourceMargin;
      const clear = confidence >= s.minConfidence && top.exact >= s.minExact && !resourceWins && asked(top);
      // The ranking leads with coverage, which counts a word met in an FAQ's answer in full; focus counts it at
      // answerCredit. When another FAQ's question meets more of the message than the leader does (`rival`), the two
      // readings disagree on what is asked: the contact is asked which one they mean rather than given the first.
      const rival = faqs.reduce<RankedHit | undefined>(
        (r, h) => (answerKeys[h.index] !== answerKeys[top.index] && (!r || h.focus > r.focus) ? h : r),
        undefined,
      );
      const contested = rival !== undefined && rival.focus > top.focus + s.rivalFocusLead && passes(rival);
      if (clear && margin >= s.minMargin && contested)
        return { kind: 'clarify', options: [candidate(top), candidate(rival)] };
      if (clear && margin >= s.minMargin) {
        // One word shared with an FAQ, besides the words that name the business, while the message names something
        // no FAQ mentions ("do you teach martial arts classes?" at a yoga studio whose classes are yoga and pilates):
        // the FAQ answers a neighbouring question. A resource that names it is
        // what the message is about; otherwise the contact is asked whether the FAQ is what they mean.
        const specific = matchedWords(units, top, (u) => index.share(u) < s.genericShare);
        const missing =
          s.thinMatch > 0 && specific <= s.thinMatch
            ? uncoveredSubjects(units, analyzer.language, (t) => index.knows(t), top)
            : [];
        // Thin evidence: the FAQ covers under thinCoverage of what the message says, on less than thinExact
        // FAQ-specific words. Wrong answers rest on such matches far more often than right ones do, so the bot asks
        // whether the contact means that FAQ (or which of the two best, when the runner-up would pass as well).
        const thin = top.coverage < s.thinCoverage && top.exact < s.thinExact;
        if (!missing.length && thin)
          return {
            kind: 'clarify',
            options: second && passes(second) ? [candidate(top), candidate(second)] : [candidate(top)],
          };
        if (!missing.length)
          return { kind: 'answer', answer: faq.answer, faqIndex: top.index, score: top.score, confidence };
        const naming = resources.find((r) => missing.some((i) => r.matched.includes(i)));
        if (!naming) return { kind: 'clarify', options: [candidate(top)] };
        return { kind: 'handoff', reason: 'not_confident', best: candidate(top), resourceIndex: naming.index };
      }
      if (clear && second && passes(second)) {
        return { kind: 'clarify', options: [candidate(top), candidate(second)] };
      }
      return {
        kind: 'handoff',
        reason: 'not_confident',
        best: candidate(top),
        ...(resourceWins ? { resourceIndex: resource.index } : {}),
      };
    },

    choose(message, options) {
      const picked = pickedByPosition(analyzer.words(message), options.length);
      if (picked !== undefined) return options[picked];
      // Words of the message found in one option's question and not in the others'.
      const hits = rankedHits(message).faqs.filter((h) => options.includes(h.index) && h.coverage > 0);
      const [first, next] = hits;
      return first && (!next || first.coverage > next.coverage) ? first.index : undefined;
    },

    relevant(message, limit = DEFAULT_RELEVANT_LIMIT) {
      const { faqs, resources } = rankedHits(message);
      const pick = (hits: Hit[]) =>
        hits
          .filter((h) => h.coverage >= s.relevanceFloor)
          .slice(0, Math.max(0, limit))
          .map((h) => h.index);
      return { faqs: pick(faqs), resources: pick(resources) };
    },
  };
}

type RankedHit = Hit & { rank: number };

/** Ordinal words (and the cardinals that cannot mean anything else), by position, in the bot's languages (accent-free). */
const ORDINALS: ReadonlyArray<ReadonlySet<string>> = [
  new Set([
    'first',
    '1st',
    'primero',
    'primera',
    'primer',
    'primeiro',
    'primeira',
    'premier',
    'premiere',
    'erste',
    'ersten',
    'erstes',
    'primo',
    'prima',
  ]),
  new Set([
    'second',
    '2nd',
    'segundo',
    'segunda',
    'seconde',
    'deuxieme',
    'zweite',
    'zweiten',
    'zweites',
    'secondo',
    'seconda',
    'two',
    'dos',
    'dois',
    'deux',
    'zwei',
    'due',
  ]),
  new Set([
    'third',
    '3rd',
    'tercero',
    'tercera',
    'terceiro',
    'terceira',
    'troisieme',
    'dritte',
    'terzo',
    'terza',
    'three',
    'tres',
    'trois',
    'drei',
    'tre',
  ]),
];

/** Yes in the bot's languages (accent-free): the answer to a question that offered one FAQ ("Is this your question: …?"). */
const YES = new Set([
  'yes',
  'yeah',
  'yep',
  'yup',
  'correct',
  'exactly',
  'si',
  'claro',
  'exacto',
  'eso',
  'sim',
  'isso',
  'oui',
  'exactement',
  'ja',
  'genau',
  'esatto',
]);
const NO = new Set(['no', 'not', 'nope', 'nah', 'nao', 'non', 'nein']);

/** The position a short answer names ("2", "the second", "la primera", or "yes" to one option), if it names exactly one. */
function pickedByPosition(words: readonly string[], count: number): number | undefined {
  // A longer message is a sentence of its own, not a pick.
  if (words.length === 0 || words.length > 4) return undefined;
  if (count === 1 && words.some((w) => YES.has(w)) && !words.some((w) => NO.has(w))) return 0;
  const named = new Set<number>();
  for (const word of words) {
    const number = /^(\d+)[.)]?$/.exec(word);
    if (number) named.add(Number(number[1]) - 1);
    ORDINALS.forEach((set, i) => set.has(word) && named.add(i));
  }
  const [only] = named;
  return named.size === 1 && only! >= 0 && only! < count ? only : undefined;
}

/** One-off form of `createFaqBot(knowledge).answer(message)`; builds the index on every call. */
export function answerFromFaqs(knowledge: FaqKnowledge, message: string): FaqBotReply {
  return createFaqBot(knowledge).answer(message);
}
