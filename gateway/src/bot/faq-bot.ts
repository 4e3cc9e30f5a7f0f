/**
 * The offline FAQ bot: answers a customer's message with the answer of one of the campaign's FAQs when it is
 * confident that FAQ answers it, and hands off to a person otherwise. Pure: no I/O, no clock, no network.
 * `createFaqBot` builds the index once per campaign (per change of its bot settings); `answer` runs per message.
 *
 * Steps for a message (at most MAX_MESSAGE_LENGTH characters are read):
 * 1. Small talk ("hi", "thanks!", "ok 👍", smalltalk.ts) → `{kind: 'smalltalk', act}`: nothing to answer and no
 *    reason to page a person; the engine decides (stays silent after thanks, greets back...).
 * 2. No FAQ with both a question and an answer → hand-off, reason `no_knowledge`.
 * 3. Text analysis (text.ts: stop words, Snowball stems, synonym concepts) and search (retrieval.ts: MiniSearch
 *    BM25+ over FAQ question + answer and over resources, fuzzy for typos).
 * 4. Ranking of the FAQs: coverage + 0.25 × (BM25 score / best BM25 score). Coverage (the share of the message's
 *    idf-weighted words the FAQ matches) decides; BM25, which rewards matches in the short question field, breaks
 *    near ties.
 * 5. Answer with the first FAQ when all hold, otherwise hand off with reason `not_confident` and the best candidate:
 *    - coverage >= 0.3 (`minConfidence`): the FAQ matches a fair share of what the message says;
 *    - exact >= 0.85 (`minExact`): about one FAQ-specific word matched as written, not only fuzzily or through a
 *      synonym concept many FAQs share (stops "hosting" → "hosted in the EU" type answers to one vague word);
 *    - the ranking value leads the second FAQ's by >= 0.08 (`minMargin`): two FAQs matching alike is a coin toss;
 *    - no resource covers the message by more than 0.2 over the FAQ (`resourceMargin`).
 *    The reply's `confidence` is the FAQ's coverage.
 *
 * Resources: the bot never answers with a resource (it only speaks the business's own FAQ answers), but resources are
 * indexed beside the FAQs. A message that a resource covers clearly better than any FAQ ("is the clinic wheelchair
 * accessible?" when only a resource mentions the wheelchair access) is about something the FAQs do not answer: the
 * bot hands off and names that resource (`resourceIndex`) so the person, or a later LLM bot, can use it.
 *
 * How the numbers were chosen (gateway/eval/faq-bot, `npm run eval:bot`): the rule's form and the ranking were
 * worked out on the dental clinic; the four businesses marked "tuning" (dental clinic, furniture shop, software
 * subscription, Spanish gym) were then used to pick the thresholds by a grid search for the most correct answers at
 * no more than 4 % wrong answers (a margin under the 5 % target). The car garage and the Spanish vet clinic
 * ("held-out") were written before that tuning and not used to choose the thresholds: their figures are the honest
 * estimate for a new business, and they are lower. Their one run before any change showed a bug, "consulta" listed
 * as a Spanish chat filler though it names a clinic's consultation; it was removed (held-out 63.2 % → 66.2 % correct,
 * 9.1 % → 8.0 % wrong) and nothing else was changed after seeing them.
 */
import { analyzerFor } from './text.js';
import { KnowledgeIndex, type FaqEntry, type Hit, type RetrievalSettings } from './retrieval.js';
import { smallTalkAct, type SmallTalkAct } from './smalltalk.js';

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
}

export interface FaqBotSettings extends RetrievalSettings {
  /** Weight of BM25 (relative to the best FAQ's) beside coverage in the ranking. */
  scoreWeight: number;
  minConfidence: number;
  minExact: number;
  minMargin: number;
  resourceMargin: number;
}

export const DEFAULT_SETTINGS: Readonly<FaqBotSettings> = {
  questionBoost: 1.5,
  answerBoost: 1,
  resourceBoost: 1,
  fuzzyWeight: 0.45,
  fuzzyCredit: 0.8,
  unknownWeight: 0.5,
  scoreWeight: 0.25,
  minConfidence: 0.3,
  minExact: 0.85,
  minMargin: 0.08,
  resourceMargin: 0.2,
};

/** Longer messages are read up to here: the question is almost always near the start, and the cost stays bounded. */
export const MAX_MESSAGE_LENGTH = 2000;

/** Builds the campaign's index once; `answer` is then cheap enough to run on every incoming message. */
export function createFaqBot(knowledge: FaqKnowledge, settings: Partial<FaqBotSettings> = {}): FaqBot {
  const s: FaqBotSettings = { ...DEFAULT_SETTINGS, ...settings };
  const analyzer = analyzerFor(knowledge.language);
  const index = new KnowledgeIndex(knowledge.faqs, knowledge.resources ?? [], analyzer, s);

  return {
    answer(message) {
      const text = message.slice(0, MAX_MESSAGE_LENGTH);
      const act = smallTalkAct(text, analyzer);
      if (act) return { kind: 'smalltalk', act };
      if (!index.faqCount) return { kind: 'handoff', reason: 'no_knowledge' };

      const hits = index.search(analyzer.units(text));
      const faqs = hits.filter((h) => h.kind === 'faq');
      if (!faqs.length) return { kind: 'handoff', reason: 'not_confident' };
      const bestScore = Math.max(...faqs.map((h) => h.score));
      const rank = (h: Hit) => h.coverage + s.scoreWeight * (h.score / bestScore);
      faqs.sort((a, b) => rank(b) - rank(a));
      const [top, second] = faqs as [Hit, Hit | undefined];
      const resource = hits.filter((h) => h.kind === 'resource').sort((a, b) => b.coverage - a.coverage)[0];

      const faq = knowledge.faqs[top.index]!;
      const confidence = top.coverage;
      const margin = rank(top) - (second ? rank(second) : 0);
      const resourceWins = resource !== undefined && resource.coverage > top.coverage + s.resourceMargin;
      if (confidence >= s.minConfidence && top.exact >= s.minExact && margin >= s.minMargin && !resourceWins) {
        return { kind: 'answer', answer: faq.answer, faqIndex: top.index, score: top.score, confidence };
      }
      const best = { faqIndex: top.index, question: faq.question, score: top.score, confidence };
      return { kind: 'handoff', reason: 'not_confident', best, ...(resourceWins ? { resourceIndex: resource.index } : {}) };
    },
  };
}

/** One-off form of `createFaqBot(knowledge).answer(message)`; builds the index on every call. */
export function answerFromFaqs(knowledge: FaqKnowledge, message: string): FaqBotReply {
  return createFaqBot(knowledge).answer(message);
}
