import path from 'node:path';
import { gatewayModule } from '../helpers/gateway-modules';

type FaqTextsModule = typeof import('../../gateway/src/providers/bot/faq-texts.js', {
  with: { 'resolution-mode': 'import' }
});

/**
 * The FAQ bot's "which one do you mean?" in each of its languages: two FAQs or more as numbered choices, a single
 * one as a plain yes-or-no question, never a list of one.
 */
let texts: FaqTextsModule;
beforeAll(async () => {
  texts = (await gatewayModule(
    path.resolve(__dirname, '../../gateway/dist/providers/bot/faq-texts.js'),
  )) as FaqTextsModule;
});

const ONE: Record<string, string> = {
  en: 'Is this your question: Q1?\nIf so, reply yes; if not, tell us more.',
  es: '¿Tu pregunta es esta? Q1?\nSi es así, responde sí; si no, cuéntanos más.',
  pt: 'Sua pergunta é esta? Q1?\nSe for, responda sim; se não, conte-nos mais.',
  fr: 'Votre question est-elle celle-ci ? Q1?\nSi oui, répondez oui ; sinon, dites-nous-en plus.',
  de: 'Ist das Ihre Frage? Q1?\nWenn ja, antworten Sie mit Ja; sonst schreiben Sie uns mehr.',
  it: 'È questa la tua domanda? Q1?\nSe sì, rispondi sì; altrimenti scrivici di più.',
};

test.each(Object.entries(ONE))('%s: one FAQ is asked about plainly; two are numbered choices', (language, one) => {
  const { clarify } = texts.textsFor(language);
  expect(clarify(['Q1?'])).toBe(one);
  expect(clarify(['Q1?'])).not.toMatch(/\b1\. /);
  expect(clarify(['Q1?', 'Q2?'])).toMatch(/\n1\. Q1\?\n2\. Q2\?\n/);
});

test('a language the bot does not speak gets English', () => {
  expect(texts.textsFor('nl').clarify(['Q1?'])).toBe(ONE.en);
});
