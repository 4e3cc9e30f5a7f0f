import path from 'node:path';

import fc from 'fast-check';

type Keywords = typeof import('../../gateway/src/engine/keywords.js', { with: { 'resolution-mode': 'import' } });

let k: Keywords;
beforeAll(async () => {
  k = (await import(path.resolve(__dirname, '../../gateway/dist/engine/keywords.js'))) as Keywords;
});

describe('opt-out, opt-in and help words, alone', () => {
  test.each(['STOP', 'stop', 'Stop', ' stop ', 'stop.', 'STOP!', 'Stop!!!', '"stop"', 'stop 🛑', 'STOPALL', 'quit', 'End', 'REVOKE', 'OPT OUT', 'opt-out', 'Opt  Out', 'opt_out', 'cancel', 'Unsubscribe.', '\nSTOP\n'])(
    '%j opts out',
    (body) => {
      expect(k.classify(body)).toBe('opt_out');
    },
  );

  test.each(['START', 'start.', 'Unstop', 'UNSTOP!'])('%j opts in', (body) => {
    expect(k.classify(body)).toBe('opt_in');
  });

  test.each(['HELP', 'help?', ' Help! '])('%j asks for help', (body) => {
    expect(k.classify(body)).toBe('help');
  });

  test.each([
    "I can't stop smiling",
    'we want to cancel our old provider and switch to you',
    'stop it',
    'please stop',
    'STOP STOP',
    'stopp',
    'optout',
    'the end of the month works',
    'start tomorrow?',
    'help me choose a plan',
    'the agenda',
    'unsubscribed',
  ])('%j is an ordinary message', (body) => {
    expect(k.classify(body)).toBeUndefined();
  });

  test('empty and punctuation-only messages are ordinary', () => {
    for (const body of ['', '   ', '...', '👍']) expect(k.classify(body)).toBeUndefined();
  });
});

describe('hand-off', () => {
  test.each([
    ['en', 'Can I talk to a human please?'],
    ['en', 'I want to SPEAK TO A PERSON.'],
    ['en', 'is this a real person?'],
    ['en', 'agent'],
    ['en', 'Agent!'],
    ['en', 'Human'],
    ['en', 'get me a live agent'],
    ['es', 'Quiero hablar con una persona'],
    ['es', '¿Puedo hablar con un agente?'],
    ['es', 'Necesito atención humana'],
    ['pt', 'Quero falar com um atendente'],
    ['pt', 'posso falar com alguém?'],
    ['pt', 'Atendente'],
    ['fr', "Je voudrais parler à quelqu'un"],
    ['fr', 'Puis-je parler à un conseiller ?'],
    ['fr', 'opérateur'],
    ['de', 'Ich möchte mit einem Menschen sprechen'],
    ['de', 'Kann ich mit jemandem reden?'],
    ['de', 'Mitarbeiter'],
    ['it', 'Vorrei parlare con un operatore'],
    ['it', 'parlare con una persona vera'],
  ])('%s: %j asks for a person', (language, body) => {
    expect(k.classify(body, { languages: [language] })).toBe('handoff');
    expect(k.classify(body)).toBe('handoff');
  });

  test.each([
    'the agenda for tomorrow',
    'I am an insurance agent',
    'my agent will call you',
    'human resources sent me',
    'a personal question',
    'we talked to a humanitarian group',
    'I speak to persons every day',
    'the agency',
    'humanly possible',
  ])('%j is an ordinary message', (body) => {
    expect(k.classify(body)).toBeUndefined();
  });

  test('phrases match whole words only', () => {
    expect(k.classify('talk to a humane society')).toBeUndefined();
    expect(k.classify('I want to talk to a human')).toBe('handoff');
  });

  test('languages: the ones asked for plus English; region subtags and case ignored; none asked for means all', () => {
    expect(k.classify('Quero falar com um atendente', { languages: ['es'] })).toBeUndefined();
    expect(k.classify('Quero falar com um atendente', { languages: ['pt-BR'] })).toBe('handoff');
    expect(k.classify('Quero falar com um atendente', { languages: ['PT_br'] })).toBe('handoff');
    expect(k.classify('talk to a human', { languages: ['es'] })).toBe('handoff');
    expect(k.classify('talk to a human', { languages: ['ja'] })).toBe('handoff');
    expect(k.classify('Ich möchte mit einem Menschen sprechen', { languages: ['ja'] })).toBeUndefined();
    expect(k.classify('Ich möchte mit einem Menschen sprechen', { languages: [] })).toBe('handoff');
  });

  test('an opt-out word wins over everything', () => {
    expect(k.classify('STOP', { languages: ['en'] })).toBe('opt_out');
  });
});

describe('the normal form', () => {
  // As documented: compatibility decomposition, marks dropped, lower case, every run of non-letters and non-digits one space.
  const documented = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

  test('plain ASCII text, read on a shorter path, comes out as the documented form', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...'aZ09 \t\n!?.,-_\'"  '.split('')), maxLength: 40 }), (text) => k.normalize(text) === documented(text)));
    fc.assert(fc.property(fc.string({ unit: 'binary-ascii', maxLength: 60 }), (text) => k.normalize(text) === documented(text)));
  });

  test('accents and other scripts keep the Unicode path', () => {
    for (const text of ['Café  CRÈME', 'ＳＴＯＰ', 'Señor, ¿hablar con una persona?', 'Straße']) expect(k.normalize(text)).toBe(documented(text));
  });
});

describe('the exported lists', () => {
  test('every list is in the normal form it is compared in, so none can silently never match', () => {
    const all = [
      ...k.OPT_OUT_WORDS,
      ...k.OPT_IN_WORDS,
      ...k.HELP_WORDS,
      ...Object.values(k.HANDOFF_PHRASES).flat(),
      ...Object.values(k.HANDOFF_WORDS).flat(),
    ];
    for (const entry of all) expect(k.normalize(entry)).toBe(entry);
  });

  test('six languages at least, each with phrases and words', () => {
    for (const language of ['en', 'es', 'pt', 'fr', 'de', 'it']) {
      expect(k.HANDOFF_PHRASES[language]!.length).toBeGreaterThan(0);
      expect(k.HANDOFF_WORDS[language]!.length).toBeGreaterThan(0);
    }
    expect(Object.keys(k.HANDOFF_WORDS).sort()).toEqual([...k.HANDOFF_LANGUAGES].sort());
  });

  test('the FCC list of opt-out words', () => {
    expect([...k.OPT_OUT_WORDS]).toEqual(['stop', 'stopall', 'quit', 'end', 'revoke', 'opt out', 'cancel', 'unsubscribe']);
  });
});
