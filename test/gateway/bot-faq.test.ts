import path from 'node:path';
import { gatewayModule } from '../helpers/gateway-modules';

type FaqBotModule = typeof import('../../gateway/src/bot/faq-bot.js', { with: { 'resolution-mode': 'import' } });
type TextModule = typeof import('../../gateway/src/bot/text.js', { with: { 'resolution-mode': 'import' } });
type EvaluationModule = typeof import('../../gateway/src/bot/evaluation.js', { with: { 'resolution-mode': 'import' } });
type LearningLoopModule = typeof import('../../gateway/src/bot/learning-loop.js', {
  with: { 'resolution-mode': 'import' }
});
type MeaningModule = typeof import('../../gateway/src/bot/meaning.js', { with: { 'resolution-mode': 'import' } });
type SubjectModule = typeof import('../../gateway/src/bot/subject.js', { with: { 'resolution-mode': 'import' } });
type QuestionsModule = typeof import('../../gateway/src/bot/questions.js', { with: { 'resolution-mode': 'import' } });
type BurstModule = typeof import('../../gateway/src/bot/burst.js', { with: { 'resolution-mode': 'import' } });
type BurstEvaluationModule = typeof import('../../gateway/src/bot/burst-evaluation.js', {
  with: { 'resolution-mode': 'import' }
});

const dist = path.resolve(__dirname, '../../gateway/dist/bot');
const EVAL_DIR = path.resolve(__dirname, '../../gateway/eval/faq-bot');

let bot: FaqBotModule;
let text: TextModule;
let evaluation: EvaluationModule;
let loop: LearningLoopModule;
let meaning: MeaningModule;
let subject: SubjectModule;
let questions: QuestionsModule;
let burst: BurstModule;
let burstEvaluation: BurstEvaluationModule;
beforeAll(async () => {
  questions = (await gatewayModule(path.join(dist, 'questions.js'))) as QuestionsModule;
  burst = (await gatewayModule(path.join(dist, 'burst.js'))) as BurstModule;
  burstEvaluation = (await gatewayModule(path.join(dist, 'burst-evaluation.js'))) as BurstEvaluationModule;
  subject = (await gatewayModule(path.join(dist, 'subject.js'))) as SubjectModule;
  loop = (await gatewayModule(path.join(dist, 'learning-loop.js'))) as LearningLoopModule;
  meaning = (await gatewayModule(path.join(dist, 'meaning.js'))) as MeaningModule;
  bot = (await gatewayModule(path.join(dist, 'faq-bot.js'))) as FaqBotModule;
  text = (await gatewayModule(path.join(dist, 'text.js'))) as TextModule;
  evaluation = (await gatewayModule(path.join(dist, 'evaluation.js'))) as EvaluationModule;
});

const shop = {
  language: 'en',
  faqs: [
    { question: 'What are your prices?', answer: 'Our price list is on the website.' },
    { question: 'Where is the office?', answer: 'At 1 Main Street.' },
    { question: 'Can I get my furniture painted?', answer: 'Yes, we repaint furniture in any colour.' },
    { question: 'Do you offer teeth whitening?', answer: 'Yes, from $250.' },
    { question: 'What is your refund policy?', answer: 'Full refund within 30 days.' },
    { question: 'Do you ship abroad?', answer: 'Only within the US for now.' },
  ],
  resources: ['The office has wheelchair access with a ramp at the side door.'],
};

const answerOf = (
  knowledge: Parameters<FaqBotModule['answerFromFaqs']>[0],
  message: string,
  settings: Parameters<FaqBotModule['createFaqBot']>[1] = {},
) => {
  const reply = bot.createFaqBot(knowledge, settings).answer(message);
  return reply.kind === 'answer' ? knowledge.faqs[reply.faqIndex]!.question : reply.kind;
};

/** Without the thin-match rule: for tests of what another step does on its own. */
const NOT_THIN = { thinCoverage: 0 };

describe('text analysis', () => {
  test.each([
    ['en', 'prices', 'price'],
    ['en', 'painting', 'painted'],
    ['es', 'precios', 'precio'],
    ['es', 'vacunación', 'vacunacion'],
    ['es', 'vacunación', 'vacunar'],
    ['en', 'teeth', 'tooth'],
    ['en', 'colour', 'color'],
  ])('%s: %j and %j share a term', (language, a, b) => {
    const analyzer = text.analyzerFor(language);
    const [ua] = analyzer.units(a);
    const [ub] = analyzer.units(b);
    expect(ua!.terms.some((t) => ub!.terms.includes(t))).toBe(true);
  });

  test('stop words and chat fillers carry no unit; synonym phrases add their concept', () => {
    const units = text.analyzerFor('en').units('hey guys, how much is it?');
    expect(units.map((u) => u.terms)).toEqual([['~price']]);
  });
});

describe('the FAQ bot', () => {
  test('one FAQ, asked with its own words, is answered with full confidence', () => {
    const knowledge = { faqs: [{ question: 'Do you deliver on Sundays?', answer: 'No, Monday to Saturday only.' }] };
    const reply = bot.answerFromFaqs(knowledge, 'Do you deliver on Sundays?');
    expect(reply).toEqual({
      kind: 'answer',
      answer: 'No, Monday to Saturday only.',
      faqIndex: 0,
      score: expect.any(Number),
      confidence: 1,
    });
  });

  test('stemming: "painting" finds the FAQ about "painted" furniture', () => {
    expect(answerOf(shop, 'do you do furniture painting')).toBe('Can I get my furniture painted?');
  });

  test('a typo still matches, and tells apart FAQs that share the other words', () => {
    const clinic = {
      faqs: [
        { question: 'How much is teeth whitening?', answer: 'W' },
        { question: 'How much is a teeth cleaning?', answer: 'C' },
        { question: 'Do you accept insurance?', answer: 'I' },
      ],
    };
    expect(answerOf(clinic, 'teeth whitning price?')).toBe('How much is teeth whitening?');
    expect(answerOf(clinic, 'price for a teeth cleanning')).toBe('How much is a teeth cleaning?');
    expect(answerOf(clinic, 'do u take insurence')).toBe('Do you accept insurance?');
  });

  test('a lone word known only by a typo is not enough to answer', () => {
    expect(bot.answerFromFaqs(shop, 'whitning?')).toMatchObject({
      kind: 'handoff',
      reason: 'not_confident',
      best: { faqIndex: 3 },
    });
  });

  test.each([
    ['how much does it cost', 'What are your prices?'],
    ['can I get my money back', 'What is your refund policy?'],
    ['do you deliver to Canada', 'Do you ship abroad?'],
  ])('synonyms: %j is answered by %j', (message, question) => {
    expect(answerOf(shop, message, NOT_THIN)).toBe(question);
  });

  test('a synonym alone, beside a word no FAQ uses, is asked about rather than answered', () => {
    expect(bot.answerFromFaqs(shop, 'do you deliver to Canada')).toMatchObject({
      kind: 'clarify',
      options: [{ question: 'Do you ship abroad?' }],
    });
  });

  test('Spanish: stems and synonyms of the campaign language', () => {
    const gym = {
      language: 'es',
      faqs: [
        { question: '¿Cuánto cuesta la membresía?', answer: '39 € al mes.' },
        { question: '¿Cuál es el horario?', answer: 'De 6:00 a 23:00.' },
        { question: '¿Hay aparcamiento?', answer: 'Sí, 2 horas gratis.' },
      ],
    };
    expect(answerOf(gym, 'precio de la membresia?')).toBe('¿Cuánto cuesta la membresía?');
    expect(answerOf(gym, 'a que hora abren?')).toBe('¿Cuál es el horario?');
    expect(answerOf(gym, 'hay estacionamiento')).toBe('¿Hay aparcamiento?');
  });

  test('a concept many answers mention but one question asks about picks that FAQ', () => {
    const clinic = {
      faqs: [
        { question: 'How do I book an appointment?', answer: 'Online or by phone.' },
        { question: 'What is your cancellation policy?', answer: 'Cancel appointments 24 hours ahead.' },
        { question: 'Do you treat children?', answer: 'Yes, book an appointment for your kids any day.' },
        { question: 'Where are you?', answer: 'At 1 Main Street.' },
      ],
    };
    expect(answerOf(clinic, 'how can I make an appt')).toBe('How do I book an appointment?');
  });

  test('no FAQ to answer from: hand-off for lack of knowledge', () => {
    expect(bot.answerFromFaqs({ faqs: [] }, 'how much is it?')).toEqual({ kind: 'handoff', reason: 'no_knowledge' });
    expect(
      bot.answerFromFaqs(
        { faqs: [{ question: 'Price?', answer: '  ' }], resources: ['Prices start at $10.'] },
        'how much is it?',
      ),
    ).toEqual({
      kind: 'handoff',
      reason: 'no_knowledge',
    });
  });

  test.each([
    ['thanks!', 'thanks'],
    ['Thank you so much 🙏', 'thanks'],
    ['ok thanks, bye', 'thanks'],
    ['hi', 'greeting'],
    ['Good morning!', 'greeting'],
    // A tap on Messenger's Get Started button sends its title.
    ['Get Started', 'greeting'],
    ['ok 👍', 'acknowledgement'],
    ['👍', 'acknowledgement'],
    ['see you', 'goodbye'],
  ])('small talk %j is %s, neither answered nor handed off', (message, act) => {
    expect(bot.answerFromFaqs(shop, message)).toEqual({ kind: 'smalltalk', act });
  });

  test('small talk in the campaign language, and with no FAQs at all', () => {
    expect(bot.answerFromFaqs({ faqs: [], language: 'es' }, '¡Muchas gracias!')).toEqual({
      kind: 'smalltalk',
      act: 'thanks',
    });
    expect(bot.answerFromFaqs({ faqs: [], language: 'es' }, 'hola')).toEqual({ kind: 'smalltalk', act: 'greeting' });
    for (const [language, tap] of [
      ['es', 'Empezar'],
      ['pt', 'Começar'],
      ['fr', 'Commencer'],
      ['de', "Los geht's"],
      ['it', 'Inizia'],
    ])
      expect(bot.answerFromFaqs({ faqs: [], language }, tap)).toEqual({ kind: 'smalltalk', act: 'greeting' });
  });

  test('a greeting around a question does not hide the question', () => {
    expect(answerOf(shop, 'hi, what are your prices?')).toBe('What are your prices?');
  });

  test('off-topic and empty messages, and emoji that complain or ask, are handed off', () => {
    for (const message of [
      'who won the game last night',
      '???',
      '',
      'can you write me a poem',
      '😡😡😡',
      '👎',
      '🤔?',
    ]) {
      expect(bot.answerFromFaqs(shop, message)).toMatchObject({ kind: 'handoff', reason: 'not_confident' });
    }
  });

  test('a message a resource covers better than any FAQ is handed off with that resource', () => {
    expect(bot.answerFromFaqs(shop, 'is there wheelchair access at the office?')).toMatchObject({
      kind: 'handoff',
      reason: 'not_confident',
      best: { faqIndex: 1, question: 'Where is the office?' },
      resourceIndex: 0,
    });
  });

  test('an index built once answers like the one-off form', () => {
    const faqBot = bot.createFaqBot(shop);
    for (const message of ['how much does it cost', 'thanks', 'who won the game']) {
      expect(faqBot.answer(message)).toEqual(bot.answerFromFaqs(shop, message));
    }
  });
});

describe('relevant: the knowledge retrieval found, for a model to answer from', () => {
  test('the best matching FAQ comes first, and a resource that covers the message is named', () => {
    const faqBot = bot.createFaqBot(shop);
    expect(faqBot.relevant('how much does it cost').faqs[0]).toBe(0);
    expect(faqBot.relevant('is there wheelchair access at the office?')).toEqual({ faqs: [1], resources: [0] });
  });

  test('at most `limit` of each, 5 by default, best first', () => {
    const many = {
      faqs: Array.from({ length: 8 }, (_, i) => ({
        question: `Do you sell oak table model ${'abcdefgh'[i]}?`,
        answer: 'Yes.',
      })),
    };
    const faqBot = bot.createFaqBot(many);
    expect(faqBot.relevant('oak table').faqs).toHaveLength(5);
    expect(faqBot.relevant('oak table', 2).faqs).toHaveLength(2);
    expect(faqBot.relevant('oak table', 0).faqs).toEqual([]);
  });

  test('indices point into knowledge.faqs even when an FAQ without an answer is skipped', () => {
    const knowledge = {
      faqs: [
        { question: 'Do you ship abroad?', answer: ' ' },
        { question: 'Do you deliver on Sundays?', answer: 'No.' },
      ],
    };
    expect(bot.createFaqBot(knowledge).relevant('deliver on sunday')).toEqual({ faqs: [1], resources: [] });
  });

  test('nothing below the relevance floor: off-topic, small talk and empty messages get nothing', () => {
    const faqBot = bot.createFaqBot(shop);
    // The last one shares a word with an FAQ and with the resource, and is still about something else.
    const offTopic = 'can your office staff recommend a good mechanic, plumber and electrician nearby';
    for (const message of ['who won the game last night', 'thanks!', '', '???', offTopic]) {
      expect(faqBot.relevant(message)).toEqual({ faqs: [], resources: [] });
    }
  });
});

describe('precision: the bot answers only what it has reason to', () => {
  const clinic = {
    faqs: [
      { question: 'What are your opening hours?', answer: 'Monday to Friday 8am to 6pm.' },
      { question: 'Do you take emergencies?', answer: 'Yes, call the on-call line.' },
      { question: 'Where are you?', answer: 'At 1 Main Street, next to the bakery.' },
      { question: 'Do you accept insurance?', answer: 'Most plans.' },
      { question: 'How much is a checkup?', answer: '$80.' },
      { question: 'Do you treat children?', answer: 'From age 3.' },
      { question: 'Can I pay in instalments?', answer: 'Yes, over 12 months.' },
      { question: 'Is there parking?', answer: 'Two spaces behind.' },
      { question: 'Do you offer whitening?', answer: 'Yes, $300.' },
    ],
  };

  test('an FAQ matched only in its answer answers when the answer holds most of the message, not a part of it', () => {
    expect(answerOf(clinic, 'the bakery?')).toBe('Where are you?');
    // "runs" is in no FAQ: the answer mentions the bakery in passing, and the question is about something else.
    const lenient = { minConfidence: 0.1 };
    expect(
      bot.createFaqBot(clinic, { ...lenient, ...NOT_THIN, minAnswerOnlyCoverage: 0 }).answer('who runs the bakery')
        .kind,
    ).toBe('answer');
    expect(bot.createFaqBot(clinic, lenient).answer('who runs the bakery')).toMatchObject({
      kind: 'handoff',
      best: { faqIndex: 2 },
    });
  });

  test('FAQs that give the same answer do not compete: the bot answers instead of asking which', () => {
    const faqs = (second: string) => ({
      faqs: [
        { question: 'Sunday delivery?', answer: 'No, Monday to Saturday only.' },
        { question: 'Delivery on a Sunday?', answer: second },
        { question: 'What are your prices?', answer: 'From $10.' },
        { question: 'Where are you?', answer: 'At 1 Main Street.' },
      ],
    });
    expect(bot.answerFromFaqs(faqs('Yes, for orders over $50.'), 'sunday delivery?').kind).toBe('clarify');
    expect(bot.answerFromFaqs(faqs('No, Monday to Saturday only.'), 'sunday delivery?')).toMatchObject({
      kind: 'answer',
      answer: 'No, Monday to Saturday only.',
    });
  });

  test('English: a word the FAQs do not use meets its WordNet synonym ("physician" → "doctor")', () => {
    const ward = {
      faqs: [
        { question: 'Is there a doctor on duty at night?', answer: 'Yes, from 8pm to 8am.' },
        { question: 'Is there a nurse on duty at weekends?', answer: 'Yes, on Saturdays.' },
        { question: 'What are your prices?', answer: 'From $10.' },
        { question: 'Where are you?', answer: 'At 1 Main Street.' },
      ],
    };
    expect(answerOf(ward, 'physician on duty?')).toBe('Is there a doctor on duty at night?');
    expect(bot.createFaqBot(ward, { relatedCredit: 0 }).answer('physician on duty?').kind).not.toBe('answer');
  });

  test("WordNet gives the synonyms of a word's first sense, and nothing for a word it does not know", () => {
    expect(meaning.relatedWords('physician')).toContain('doctor');
    expect(meaning.relatedWords('automobiles')).toContain('car');
    expect(meaning.relatedWords('qwzxv')).toEqual([]);
  });
});

describe('the subject check: a question about something no FAQ mentions is asked about, not answered', () => {
  const garage = {
    faqs: [
      { question: 'Do you repair cars of every make?', answer: 'Yes, all makes and models.' },
      { question: 'What are your opening hours?', answer: 'Monday to Friday 8am to 6pm.' },
      { question: 'Where is the garage?', answer: 'At 1 Main Street.' },
      { question: 'How much is an oil change?', answer: '$60.' },
      { question: 'Do you offer a courtesy car?', answer: 'Yes, book it with your repair.' },
    ],
    resources: ['Our owner collects vintage motorcycles; the collection is on show in the lobby.'],
  };

  test('one shared word and a subject no FAQ covers: the bot asks whether the contact means that FAQ', () => {
    const reply = bot.answerFromFaqs(garage, 'do you repair boats?');
    expect(reply).toMatchObject({
      kind: 'clarify',
      options: [{ faqIndex: 0, question: 'Do you repair cars of every make?' }],
    });
    expect(reply.kind === 'clarify' && reply.options.length).toBe(1);
    expect(bot.answerFromFaqs(garage, 'hours for my boat?')).toMatchObject({
      kind: 'clarify',
      options: [{ faqIndex: 1 }],
    });
    // Without the check, the shared word answers it.
    expect(bot.createFaqBot(garage, { thinMatch: 0, ...NOT_THIN }).answer('do you repair boats?')).toMatchObject({
      kind: 'answer',
      faqIndex: 0,
    });
  });

  test('a subject a resource mentions is handed off with that resource', () => {
    expect(bot.answerFromFaqs(garage, 'courtesy motorcycle?')).toMatchObject({
      kind: 'handoff',
      reason: 'not_confident',
      resourceIndex: 0,
      best: { faqIndex: 4 },
    });
    expect(bot.createFaqBot(garage, { thinMatch: 0, ...NOT_THIN }).answer('courtesy motorcycle?')).toMatchObject({
      kind: 'answer',
      faqIndex: 4,
    });
  });

  test('answered as before: two words match, or the unknown word only frames the question', () => {
    expect(answerOf(garage, 'how much is an oil change for a boat')).toBe('How much is an oil change?');
    expect(answerOf(garage, 'opening hours for my boat', NOT_THIN)).toBe('What are your opening hours?');
    // People and names say who and where: "for my accountant", "to Canada" (the shop's test above).
    expect(answerOf(garage, 'hours for my accountant?', NOT_THIN)).toBe('What are your opening hours?');
    expect(answerOf(garage, 'hours for my car?', NOT_THIN)).toBe('What are your opening hours?');
    // On one word while the rest of the message goes unmet, the thin-match rule then asks.
    expect(answerOf(garage, 'hours for my accountant?')).toBe('clarify');
  });

  test('the words of a synonym phrase the FAQ meets name nothing of their own ("life" in "in real life")', () => {
    const shop = {
      faqs: [
        { question: 'Can I see the sofas in person?', answer: 'Yes, in our Portland showroom, open daily.' },
        { question: 'How much is delivery?', answer: '$49.' },
        { question: 'What is your return policy?', answer: '30 days.' },
        { question: 'Where are you?', answer: 'At 1 Main Street.' },
      ],
    };
    expect(answerOf(shop, 'can I see them in real life?', NOT_THIN)).toBe('Can I see the sofas in person?');
  });

  test('a word most FAQs use names the business and is no match of its own', () => {
    const studio = {
      faqs: [
        { question: 'When are the yoga classes?', answer: 'Every day at 7am and 6pm.' },
        { question: 'How much are classes?', answer: '$20 a class.' },
        { question: 'Do you teach pilates classes?', answer: 'Yes, mat pilates classes on Wednesdays.' },
        { question: 'Is there parking?', answer: 'A free car park behind the studio.' },
        { question: 'Do you have showers?', answer: 'Yes, and lockers.' },
      ],
    };
    expect(bot.answerFromFaqs(studio, 'do you teach karate classes?')).toMatchObject({
      kind: 'clarify',
      options: [{ faqIndex: 2 }],
    });
    expect(
      bot.createFaqBot(studio, { genericShare: 1, ...NOT_THIN }).answer('do you teach karate classes?'),
    ).toMatchObject({ kind: 'answer', faqIndex: 2 });
    expect(answerOf(studio, 'pilates classes for beginners?', NOT_THIN)).toBe('Do you teach pilates classes?');
  });

  test('"yes" to a question that offered one FAQ picks it; not to one that offered two', () => {
    const faqBot = bot.createFaqBot(garage);
    expect(faqBot.choose('yes please', [0])).toBe(0);
    expect(faqBot.choose('sí', [3])).toBe(3);
    expect(faqBot.choose('no, not that', [0])).toBeUndefined();
    expect(faqBot.choose('yes', [0, 3])).toBeUndefined();
  });

  test('WordNet tells nouns that name a thing from those that frame a question, and from other words', () => {
    expect(meaning.nounOf('motorcycles')).toBe('thing');
    expect(meaning.nounOf('wedding')).toBe('thing');
    expect(meaning.nounOf('canada')).toBe('name');
    expect(meaning.nounOf('accountant')).toBe('person');
    expect(meaning.nounOf('tomorrow')).toBe('time');
    expect(meaning.nounOf('dollars')).toBe('quantity');
    expect(meaning.nounOf('invite')).toBeUndefined();
    expect(meaning.nounOf('qwzxv')).toBeUndefined();
  });

  test('other languages: a long word that is no adverb may be a subject', () => {
    const unit = (word: string) => ({ word, terms: [word] });
    expect(subject.isSubjectWord(unit('natacion'), 'es')).toBe(true);
    expect(subject.isSubjectWord(unit('exactamente'), 'es')).toBe(false);
    expect(subject.isSubjectWord(unit('gym'), 'es')).toBe(false);
    expect(subject.isSubjectWord(unit('how much'), 'en')).toBe(false);
  });
});

describe('asking when unsure: disagreeing readings and thin matches are asked about, not answered', () => {
  const furniture = {
    faqs: [
      {
        question: 'Do you deliver?',
        answer: 'Yes, we deliver sofas, beds, wardrobes and mattresses anywhere in the city.',
      },
      { question: 'Can I return a mattress?', answer: 'Yes, within 30 days.' },
      { question: 'Where is the showroom?', answer: 'At 12 Mill Lane.' },
      { question: 'What are your opening hours?', answer: 'Monday to Saturday 9am to 6pm.' },
      { question: 'Do you sell gift cards?', answer: 'Yes, from $25.' },
    ],
  };

  test('an FAQ whose question meets more of the message than the leader does is offered beside it', () => {
    // The delivery answer names the mattress and the sofa bed; the return FAQ's question asks what the message asks.
    const reply = bot.answerFromFaqs(furniture, 'return the mattress of my sofa bed');
    expect(reply).toMatchObject({
      kind: 'clarify',
      options: [{ faqIndex: 0 }, { faqIndex: 1, question: 'Can I return a mattress?' }],
    });
    expect(
      bot.createFaqBot(furniture, { rivalFocusLead: 9 }).answer('return the mattress of my sofa bed'),
    ).toMatchObject({ kind: 'answer', faqIndex: 0 });
    // A question that only one FAQ's question and answer meet is still answered.
    expect(bot.answerFromFaqs(furniture, 'is it possible to return a mattress')).toMatchObject({
      kind: 'answer',
      faqIndex: 1,
    });
  });

  test('an FAQ covering under half of the message on one specific word is asked about', () => {
    expect(bot.answerFromFaqs(furniture, 'showroom for my granny')).toMatchObject({
      kind: 'clarify',
      options: [{ faqIndex: 2, question: 'Where is the showroom?' }],
    });
    expect(bot.createFaqBot(furniture, { thinCoverage: 0 }).answer('showroom for my granny')).toMatchObject({
      kind: 'answer',
      faqIndex: 2,
    });
    expect(bot.answerFromFaqs(furniture, 'where is your showroom?')).toMatchObject({ kind: 'answer', faqIndex: 2 });
  });
});

describe('a burst asking several things: its questions', () => {
  const asked = (language: string, messages: string[]) =>
    questions.questionsOf(messages, text.analyzerFor(language)).map((q) => q.asked);
  const read = (language: string, messages: string[]) =>
    questions.questionsOf(messages, text.analyzerFor(language)).map((q) => q.text);

  test.each([
    [
      'en',
      ['What are your opening hours?', 'And where are you located?'],
      ['What are your opening hours?', 'And where are you located?'],
    ],
    ['en', ['What are your hours? And where are you?'], ['What are your hours?', 'And where are you?']],
    ['en', ['What are your hours and where are you?'], ['What are your hours', 'and where are you?']],
    ['en', ['what are your hours, and do you take insurance'], ['what are your hours', 'and do you take insurance']],
    ['es', ['¿Cuál es el horario? ¿Dónde están?'], ['¿Cuál es el horario?', '¿Dónde están?']],
    ['es', ['Hola ¿abren el domingo? y dónde están'], ['¿abren el domingo?', 'y dónde están']],
    ['es', ['cuanto cuesta la cuota y donde estan'], ['cuanto cuesta la cuota', 'y donde estan']],
    ['pt', ['qual o horário de vcs? e onde fica?'], ['qual o horário de vcs?', 'e onde fica?']],
    ['fr', ['Quels sont vos horaires ? Et où êtes-vous ?'], ['Quels sont vos horaires ?', 'Et où êtes-vous ?']],
    ['de', ['Wann habt ihr offen? Und wo seid ihr?'], ['Wann habt ihr offen?', 'Und wo seid ihr?']],
    ['it', ['Quali sono gli orari? E dove siete?'], ['Quali sono gli orari?', 'E dove siete?']],
  ])('%s: %j asks %j', (language, messages, expected) => {
    expect(asked(language, messages)).toEqual(expected);
  });

  test('one question stays one: a plain "and", a decimal point, a question word inside a statement', () => {
    expect(asked('en', ['Do you do car detailing and valeting?'])).toEqual(['Do you do car detailing and valeting?']);
    expect(asked('en', ['our train gets in at 10.30pm, is that too late to get in?'])).toHaveLength(1);
    expect(asked('en', ['I know what you did last summer', 'where are you?'])).toEqual(['where are you?']);
    expect(asked('es', ['como te dije, mi perro es grande. cuánto cuesta el baño?'])).toEqual([
      'cuánto cuesta el baño?',
    ]);
  });

  test('statements go with a question: the next of their message, else the one before, else the next; small talk goes', () => {
    expect(read('en', ['hello', 'I saw your ad', 'where is the clinic?'])).toEqual([
      'I saw your ad where is the clinic?',
    ]);
    expect(read('en', ['how much is it?', 'for a cleaning'])).toEqual(['how much is it? for a cleaning']);
    expect(read('en', ['Where are you? My son is 4. Do you see kids?'])).toEqual([
      'Where are you?',
      'My son is 4. Do you see kids?',
    ]);
    expect(read('en', ['Hi! How much is a cleaning? Thanks!'])).toEqual(['How much is a cleaning?']);
    expect(read('en', ['I saw your ad', 'thanks'])).toEqual([]);
    expect(read('en', ['?'])).toEqual([]);
  });

  test.each([
    ['en', 'Where is the clinic?', true],
    ['en', 'do you take insurance', true],
    ['en', 'and is there parking', true],
    ['en', 'my tooth broke in half, what do I do', true],
    ['en', 'I saw your ad', false],
    ['en', 'we do weddings too', false],
    ['es', 'tienen parking', false],
    ['es', 'tienen parking?', true],
    ['es', 'donde estan', true],
    ['es', 'como te dije', false],
    ['fr', 'vous prenez combien pour un balayage', true],
    ['de', 'wo seid ihr', true],
  ])('%s: %j is a question: %s', (language, sentence, expected) => {
    expect(questions.isQuestion(sentence, text.analyzerFor(language))).toBe(expected);
  });

  test('past MAX_QUESTIONS the rest is read as one more question', () => {
    const many = Array.from({ length: questions.MAX_QUESTIONS + 2 }, (_, i) => `question number ${i + 1}?`);
    const found = asked('en', many);
    expect(found).toHaveLength(questions.MAX_QUESTIONS);
    expect(found.at(-1)).toBe(many.slice(questions.MAX_QUESTIONS - 1).join(' '));
  });
});

describe('a burst asking several things: what the bot makes of it', () => {
  const clinic = {
    language: 'en',
    faqs: [
      { question: 'What are your opening hours?', answer: 'Monday to Friday, 9am to 6pm.' },
      { question: 'How much does a teeth cleaning cost?', answer: 'A cleaning costs $90.' },
      { question: 'Do you accept insurance?', answer: 'Yes, most plans.' },
      { question: 'Where is the clinic?', answer: 'At 12 Main Street.' },
      { question: 'What are your opening hours on holidays?', answer: 'On holidays 10am to 2pm.' },
    ],
  };
  const readOf = (messages: string[], clarifying: number[] | null = null) =>
    burst.readBurst(bot.createFaqBot(clinic), clinic.faqs, text.analyzerFor('en'), messages, clarifying);

  test('two questions the FAQs answer, in two messages or one: both answered, in the order asked', () => {
    for (const messages of [
      ['where is the clinic?', 'do you take insurance?'],
      ['where is the clinic? do you take insurance?'],
    ]) {
      expect(readOf(messages)).toMatchObject({
        kind: 'several',
        answered: [{ faqIndex: 3 }, { faqIndex: 2 }],
        clarify: null,
        handedOff: [],
      });
    }
  });

  test('an answer and a question no FAQ answers: the answer, and that question for a person', () => {
    expect(readOf(['how much is a cleaning?', 'Can you fix my car transmission?'])).toMatchObject({
      kind: 'several',
      answered: [{ faqIndex: 1 }],
      handedOff: [{ question: { asked: 'Can you fix my car transmission?' } }],
    });
  });

  test('an ambiguous question beside a clear one is asked about; beside one for a person, it goes to the person', () => {
    expect(readOf(['where is the clinic?', 'opening hours?'])).toMatchObject({
      kind: 'several',
      answered: [{ faqIndex: 3 }],
      clarify: { options: [{ faqIndex: 0 }, { faqIndex: 4 }] },
    });
    const three = readOf(['where is the clinic?', 'opening hours?', 'Can you fix my car transmission?']);
    expect(three).toMatchObject({ kind: 'several', clarify: null });
    expect(three.kind === 'several' && three.handedOff.map((q) => q.question.asked)).toEqual([
      'opening hours?',
      'Can you fix my car transmission?',
    ]);
  });

  test('one question, or the same asked twice, or a follow-up, is read whole as before', () => {
    const faqBot = bot.createFaqBot(clinic);
    for (const messages of [
      ['hello', 'I saw your ad', 'where is the clinic?'],
      ['how much is a cleaning?', 'what does a cleaning cost?'],
      ['how much is a cleaning?', 'and is that with insurance?'],
    ]) {
      const reading = readOf(messages);
      expect(reading).toEqual({ kind: 'one', reply: burst.readWhole(faqBot, messages) });
    }
    expect(burst.readWhole(faqBot, ['I saw your ad', 'where is the clinic?'])).toMatchObject({
      kind: 'answer',
      faqIndex: 3,
    });
  });

  test('a pick of the FAQs offered, alone or beside a new question', () => {
    expect(readOf(['2'], [0, 4])).toEqual({ kind: 'picked', faqIndex: 4 });
    expect(readOf(['2', 'do you take insurance?'], [0, 4])).toMatchObject({
      kind: 'several',
      answered: [{ faqIndex: 4, confidence: 1 }, { faqIndex: 2 }],
    });
    // An FAQ removed since it was offered is no pick.
    expect(readOf(['2'], [0, 9])).toMatchObject({ kind: 'one' });
  });

  test('on the shipped evaluation set: single questions read as before, bursts leave far fewer questions without a word', () => {
    const report = burstEvaluation.evaluateBursts(evaluation.loadEvalSets(EVAL_DIR));
    expect(report.severalOfOne.count).toBeLessThanOrEqual(1);
    for (const form of [report.twoMessages, report.oneMessage]) {
      expect(form.now.right).toBeGreaterThan(form.before.right);
      expect(form.now.leftWithoutWord).toBeLessThan(form.before.leftWithoutWord / 3);
      expect(form.now.wrongAnswers / form.now.questions).toBeLessThanOrEqual(0.025);
    }
  });
});

describe('the learning loop', () => {
  test('halves alternate: even positions first, odd positions second', () => {
    expect(loop.halves(['a', 'b', 'c', 'd', 'e'])).toEqual([
      ['a', 'c', 'e'],
      ['b', 'd'],
    ]);
  });

  test("the first half's unanswered questions become FAQs, and the second half is answered better after", () => {
    const set = {
      business: 'Test bakery',
      language: 'en',
      split: 'held-out' as const,
      faqs: [
        { id: 'hours', question: 'What are your opening hours?', answer: 'Every day 7am to 7pm.' },
        { id: 'bread', question: 'Do you bake bread to order?', answer: 'Yes, any bread, ordered a day ahead.' },
        { id: 'where', question: 'Where are you?', answer: 'At 1 Main Street.' },
      ],
      resources: [],
      // Alternating: the 1st and 3rd questions go to the first half, the 2nd and 4th to the second.
      questions: [
        { text: 'do you sell sourdough loaves', expect: 'bread' },
        { text: 'sourdough loaves available?', expect: 'bread' },
        { text: 'when do you open', expect: 'hours' },
        { text: 'what time do you open', expect: 'hours' },
      ],
      offTopic: ['can you fix my bike', 'who won the game'],
    };
    const result = loop.learningLoop(set);
    expect(result.faqsAdded).toBe(1);
    expect(result.before.tally).toMatchObject({
      answerable: 2,
      correct: 1,
      handedOff: 1,
      offTopic: 1,
      offTopicAnswered: 0,
    });
    expect(result.after.tally).toMatchObject({
      answerable: 2,
      correct: 2,
      handedOff: 0,
      offTopic: 1,
      offTopicAnswered: 0,
    });
  });
});

describe('the shipped evaluation set', () => {
  test('has at least three businesses, 150 answerable and 40 off-topic questions, all labels known', () => {
    const sets = evaluation.loadEvalSets(EVAL_DIR);
    expect(sets.length).toBeGreaterThanOrEqual(3);
    for (const set of sets) {
      expect(() => evaluation.checkSet(set)).not.toThrow();
      expect(set.faqs.length).toBeGreaterThanOrEqual(10);
    }
    expect(sets.reduce((n, s) => n + s.questions.length, 0)).toBeGreaterThanOrEqual(150);
    expect(sets.reduce((n, s) => n + s.offTopic.length, 0)).toBeGreaterThanOrEqual(40);
    expect(sets.some((s) => s.split === 'held-out')).toBe(true);
  });

  test('answer quality does not fall below the measured level', () => {
    // The targets (TARGETS: at most 3 % wrong on each group, 75 % right on held-out) are not all reached: see faq-bot.ts's header.
    // These bounds sit just beside the figures measured when the bot was last tuned, so a change that loses quality fails here.
    const report = evaluation.evaluate(evaluation.loadEvalSets(EVAL_DIR));
    expect(report.tuning.rates.correct).toBeGreaterThanOrEqual(0.49);
    expect(report.tuning.rates.wrongOverall).toBeLessThanOrEqual(0.025);
    expect(report.heldOut.rates.correct).toBeGreaterThanOrEqual(0.42);
    expect(report.heldOut.rates.wrongOverall).toBeLessThanOrEqual(0.03);
    // Most questions the bot asks about offer an FAQ that answers them.
    expect(report.heldOut.tally.clarifiedRight).toBeGreaterThanOrEqual(0.65 * report.heldOut.tally.clarified);
    const { maxWrongOverall, minHeldOutCorrect } = evaluation.TARGETS;
    expect(report.meetsTargets).toBe(
      report.tuning.rates.wrongOverall <= maxWrongOverall &&
        report.heldOut.rates.wrongOverall <= maxWrongOverall &&
        report.heldOut.rates.correct >= minHeldOutCorrect,
    );
  });
});
