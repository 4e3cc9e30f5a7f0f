import path from 'node:path';
import { gatewayModule } from '../helpers/gateway-modules';

type FaqAnswerModule = typeof import('../../gateway/src/console/faq-answer.js', {
  with: { 'resolution-mode': 'import' }
});

/**
 * Save as FAQ's draft: a team reply without what was said to one contact. The greeting, the courtesies and the
 * sign-off go (names, "Thanks, …", "Best, …", the business's and the team's names), in the bot's languages, so the
 * bot never signs an answer with a team member's name; what the answer says stays, word for word.
 */
let faq: FaqAnswerModule;
beforeAll(async () => {
  faq = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/console/faq-answer.js'))) as FaqAnswerModule;
});

const names = {
  contact: ['Gina', 'Rossi', 'Gina Rossi'],
  team: ['Dana Lopez', 'Anna Berg'],
  business: ['Smile Dental'],
};
const draft = (reply: string) => faq.faqAnswerOf(reply, names);

test('the clinic\'s sign-off goes: "Thanks, Dana at Smile Dental", on a line of its own or after the last sentence', () => {
  expect(
    draft(
      'Hi Gina, thanks for reaching out! Yes, we sell gift cards from $25 at the front desk.\n\nThanks, Dana at Smile Dental',
    ),
  ).toBe('Yes, we sell gift cards from $25 at the front desk.');
  expect(draft('Yes, gift cards from $25 at the front desk. Thanks, Dana at Smile Dental')).toBe(
    'Yes, gift cards from $25 at the front desk.',
  );
  expect(draft('We open at 9 on Saturdays.\n— The Smile Dental team')).toBe('We open at 9 on Saturdays.');
  expect(draft('Sure Gina, we open at 9.\n\nDana\nSmile Dental')).toBe('Sure, we open at 9.');
  expect(draft('Yes we do. Hope this helps!\nDana, front desk')).toBe('Yes we do.');
});

test('greetings and closings of every language the bot knows go; any name after a closing goes, known or not', () => {
  expect(draft('Hi Gina,\n\nYes! Gift cards from $25, at the front desk.\n\nBest,\nAnna')).toBe(
    'Yes! Gift cards from $25, at the front desk.',
  );
  expect(draft('Hello! We open at 9 on Saturdays.\nBest, Sam')).toBe('We open at 9 on Saturdays.');
  expect(draft('Thanks! We open at 9.')).toBe('We open at 9.');
  expect(draft('Hi Gina, thanks for reaching out!\n\nYes! Gift cards from $25.\n\nThanks, Dana at Smile Dental')).toBe(
    'Yes! Gift cards from $25.',
  );
  expect(draft('¡Hola Gina! Abrimos a las 9 los sábados.\n\nUn saludo,\nDana')).toBe('Abrimos a las 9 los sábados.');
  expect(draft('Olá Gina! Abrimos às 9 aos sábados.\nAbraços, Dana')).toBe('Abrimos às 9 aos sábados.');
  expect(draft('Bonjour Gina, nous ouvrons à 9 h le samedi.\n\nCordialement,\nDana Lopez')).toBe(
    'Nous ouvrons à 9 h le samedi.',
  );
  expect(draft('Hallo Gina, wir öffnen samstags um 9 Uhr.\n\nViele Grüße\nDana')).toBe('Wir öffnen samstags um 9 Uhr.');
  expect(draft('Ciao Gina, apriamo alle 9 il sabato. Cordiali saluti, Dana')).toBe('Apriamo alle 9 il sabato.');
});

test('what the answer says stays: a short last line that names nobody, a name inside a sentence, several paragraphs', () => {
  expect(draft('We open at 9.\nParking Is Free')).toBe('We open at 9.\nParking Is Free');
  expect(draft('Gina, we open at 9.')).toBe('We open at 9.');
  expect(draft('Monday to Saturday, 9 to 5. Ask Dana at the front desk.')).toBe(
    'Monday to Saturday, 9 to 5. Ask Dana at the front desk.',
  );
  expect(draft('Gift cards:\n\n- from $25\n- at the front desk\n\nThanks,\nDana')).toBe(
    'Gift cards:\n\n- from $25\n- at the front desk',
  );
  expect(faq.faqAnswerOf('Monday to Saturday, 9 to 5.')).toBe('Monday to Saturday, 9 to 5.');
});

test("the team's and the contact's names still in an answer are pointed out, a whole name once", () => {
  expect(faq.namesLeft('Monday to Saturday. Ask Dana at the front desk.', names)).toEqual(['Dana']);
  expect(faq.namesLeft('Dana Lopez will call you, Gina.', names)).toEqual(['Dana Lopez', 'Gina']);
  expect(faq.namesLeft('We open at 9.', names)).toEqual([]);
});
