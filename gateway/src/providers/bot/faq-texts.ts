import { baseLanguage } from '../../language.js';

/** Numbered choices: every channel takes text, not every one takes buttons. */
const choices = (questions: string[]) => questions.map((q, i) => `${i + 1}. ${q}`).join('\n');

interface Texts {
  greeting: (name: string | null) => string;
  thanks: string;
  clarify: (questions: string[]) => string;
  /** Opens the line about questions a person takes, beside the answers to the others: "About "…":". */
  about: (questions: string) => string;
  /** What the contact is told of those questions when the campaign has no hand-off text of its own. */
  followUp: string;
}

/**
 * What the FAQ bot says besides the FAQ answers, per language; English for the others. Quotes are plain `"`: curly
 * quotes or guillemets would turn an SMS into Unicode, at 70 characters a segment instead of 160.
 */
const TEXTS: Record<string, Texts> = {
  en: {
    greeting: (name) => `Hi${name ? ` ${name}` : ''}! How can I help you?`,
    thanks: "You're welcome!",
    clarify: (q) => `Do you mean:\n${choices(q)}\nReply with the number.`,
    about: (q) => `About ${q}:`,
    followUp: 'a member of our team will get back to you shortly.',
  },
  es: {
    greeting: (name) => `¡Hola${name ? ` ${name}` : ''}! ¿En qué puedo ayudarte?`,
    thanks: '¡De nada!',
    clarify: (q) => `¿Te refieres a:\n${choices(q)}\nResponde con el número.`,
    about: (q) => `Sobre ${q}:`,
    followUp: 'una persona de nuestro equipo te responderá en breve.',
  },
  pt: {
    greeting: (name) => `Olá${name ? ` ${name}` : ''}! Como posso ajudar?`,
    thanks: 'De nada!',
    clarify: (q) => `Você quer dizer:\n${choices(q)}\nResponda com o número.`,
    about: (q) => `Sobre ${q}:`,
    followUp: 'uma pessoa da nossa equipe vai responder em breve.',
  },
  fr: {
    greeting: (name) => `Bonjour${name ? ` ${name}` : ''} ! Comment puis-je vous aider ?`,
    thanks: 'Avec plaisir !',
    clarify: (q) => `Vous voulez dire :\n${choices(q)}\nRépondez avec le numéro.`,
    about: (q) => `Pour ${q} :`,
    followUp: 'un membre de notre équipe vous répondra très vite.',
  },
  de: {
    greeting: (name) => `Hallo${name ? ` ${name}` : ''}! Wie kann ich helfen?`,
    thanks: 'Gern geschehen!',
    clarify: (q) => `Meinen Sie:\n${choices(q)}\nAntworten Sie mit der Nummer.`,
    about: (q) => `Zu ${q}:`,
    followUp: 'Jemand aus unserem Team meldet sich in Kürze.',
  },
  it: {
    greeting: (name) => `Ciao${name ? ` ${name}` : ''}! Come posso aiutarti?`,
    thanks: 'Prego!',
    clarify: (q) => `Intendi:\n${choices(q)}\nRispondi con il numero.`,
    about: (q) => `Su ${q}:`,
    followUp: 'una persona del nostro team ti risponderà a breve.',
  },
};

export const textsFor = (language: string): Texts => TEXTS[baseLanguage(language)] ?? TEXTS.en!;
