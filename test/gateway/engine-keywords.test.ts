import path from 'node:path';

import fc from 'fast-check';
import { gatewayModule } from '../helpers/gateway-modules';

type Keywords = typeof import('../../gateway/src/engine/keywords.js', { with: { 'resolution-mode': 'import' } });

let k: Keywords;
beforeAll(async () => {
  k = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/engine/keywords.js'))) as Keywords;
});

describe('opt-out, opt-in and help words, alone', () => {
  test.each([
    'STOP',
    'stop',
    'Stop',
    ' stop ',
    'stop.',
    'STOP!',
    'Stop!!!',
    '"stop"',
    'stop 🛑',
    'STOPALL',
    'quit',
    'End',
    'REVOKE',
    'OPT OUT',
    'opt-out',
    'Opt  Out',
    'opt_out',
    'cancel',
    'Unsubscribe.',
    '\nSTOP\n',
  ])('%j opts out', (body) => {
    expect(k.classify(body)).toBe('opt_out');
  });

  test.each(['START', 'start.', 'Unstop', 'UNSTOP!'])('%j opts in', (body) => {
    expect(k.classify(body)).toBe('opt_in');
  });

  test.each(['HELP', 'help?', ' Help! '])('%j asks for help', (body) => {
    expect(k.classify(body)).toBe('help');
  });

  test.each([
    "I can't stop smiling",
    'we want to cancel our old provider and switch to you',
    'stoppp',
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

describe('opt-out in short phrases, in every language known', () => {
  test.each([
    'stop please',
    'Please stop',
    'STOP STOP',
    'stop it',
    'Stop now!',
    'stop. thanks',
    'unsubscribe me',
    'Unsubscribe me please',
    'cancel all',
    'quit it please',
    'please stop texting me',
    'Stop sending me messages',
    'remove me from your list',
    'Please remove me from this list, thank you',
    'take me off your list',
    'opt me out',
    'no more messages please',
    "don't text me again",
    'do not contact me',
    'STOP!!! STOP!!!',
    'STOP STOP STOP',
    'Stop. Stop. Stop. Stop please',
    'opt out opt out opt out',
    'baja baja baja',
    'Baja',
    'baja por favor',
    'Darme de baja',
    'no me escriban más',
    'Ya no quiero recibir mensajes',
    'parem de enviar mensagens',
    'Não quero receber mais',
    'descadastrar',
    'Arrêt',
    'désabonner svp',
    'Ne plus recevoir de messages',
    'retirez-moi de la liste',
    'STOPP',
    'abmelden bitte',
    'Keine Nachrichten mehr',
    'Hören Sie auf',
    'basta',
    'Non scrivermi più',
    'disiscrivimi per favore',
  ])('%j opts out', (body) => {
    expect(k.classify(body)).toBe('opt_out');
    expect(k.classify(body, { languages: ['en'] })).toBe('opt_out');
  });

  test.each([
    "I can't stop smiling",
    'stop by the shop on Monday?',
    'Can you stop by tomorrow?',
    'we want to cancel our old provider and switch to you',
    'I need to cancel my appointment',
    'the end of the month works',
    'end of story, I want the blue one',
    'Quit my job last week, now I need a new plan',
    'How do I unsubscribe from the newsletter but keep the offers?',
    'Do you remove the old flooring too?',
    'please send me more messages about offers',
    'Stop sending me photos of the kitchen and send the price of the flat with the balcony please',
    'La baja del precio es definitiva?',
    'quiero cancelar mi cita del martes',
    'vamos parar no centro amanhã',
    'Arrêtez-vous à la boutique demain ?',
    'Ich möchte mein Abo nicht abmelden, nur ändern',
    'Basta un click per prenotare?',
    'it stops raining at noon',
  ])('%j is an ordinary message', (body) => {
    expect(k.classify(body)).toBeUndefined();
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
    ['en', 'human please'],
    ['en', 'A human, please!'],
    ['en', 'an agent now'],
    ['en', 'Agent agent'],
    ['es', 'un asesor por favor'],
    ['pt', 'um atendente por favor'],
    ['fr', 'un conseiller svp'],
    ['de', 'einen Mitarbeiter bitte'],
    ['it', 'un operatore per favore'],
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
  const documented = (text: string) =>
    text
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();

  test('plain ASCII text, read on a shorter path, comes out as the documented form', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'aZ09 \t\n!?.,-_\'"  '.split('')), maxLength: 40 }),
        (text) => k.normalize(text) === documented(text),
      ),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 60 }), (text) => k.normalize(text) === documented(text)),
    );
  });

  test('accents and other scripts keep the Unicode path', () => {
    for (const text of ['Café  CRÈME', 'ＳＴＯＰ', 'Señor, ¿hablar con una persona?', 'Straße'])
      expect(k.normalize(text)).toBe(documented(text));
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
      ...Object.values(k.LOCAL_OPT_OUT_WORDS).flat(),
      ...Object.values(k.OPT_OUT_PHRASES).flat(),
      ...Object.values(k.COURTESY).flat(),
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
    expect([...k.OPT_OUT_WORDS]).toEqual([
      'stop',
      'stopall',
      'quit',
      'end',
      'revoke',
      'opt out',
      'cancel',
      'unsubscribe',
    ]);
  });
});
