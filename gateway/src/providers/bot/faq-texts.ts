import { baseLanguage } from '../../language.js';

/** Numbered choices: every channel takes text, not every one takes buttons. */
const choices = (questions: string[]) => questions.map((q, i) => `${i + 1}. ${q}`).join('\n');

/**
 * Two FAQs or more are offered as numbered choices; a single one is asked about plainly, as a yes-or-no question (a
 * list of one choice reads as a form), and the contact's "yes" picks it (FaqBot.choose).
 */
const offer = (which: (q: string[]) => string, whether: (q: string) => string) => (q: string[]) =>
  q.length === 1 ? whether(q[0]!) : which(q);

interface Texts {
  greeting: (name: string | null) => string;
  thanks: string;
  /** Asks which of the FAQs (their questions) the contact means, or, of one, whether they mean it. */
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
    clarify: offer(
      (q) => `Do you mean:\n${choices(q)}\nReply with the number.`,
      (q) => `Is this your question: ${q}\nIf so, reply yes; if not, tell us more.`,
    ),
    about: (q) => `About ${q}:`,
    followUp: 'a member of our team will get back to you shortly.',
  },
  es: {
    greeting: (name) => `¡Hola${name ? ` ${name}` : ''}! ¿En qué puedo ayudarte?`,
    thanks: '¡De nada!',
    clarify: offer(
      (q) => `¿Te refieres a:\n${choices(q)}\nResponde con el número.`,
      (q) => `¿Tu pregunta es esta? ${q}\nSi es así, responde sí; si no, cuéntanos más.`,
    ),
    about: (q) => `Sobre ${q}:`,
    followUp: 'una persona de nuestro equipo te responderá en breve.',
  },
  pt: {
    greeting: (name) => `Olá${name ? ` ${name}` : ''}! Como posso ajudar?`,
    thanks: 'De nada!',
    clarify: offer(
      (q) => `Você quer dizer:\n${choices(q)}\nResponda com o número.`,
      (q) => `Sua pergunta é esta? ${q}\nSe for, responda sim; se não, conte-nos mais.`,
    ),
    about: (q) => `Sobre ${q}:`,
    followUp: 'uma pessoa da nossa equipe vai responder em breve.',
  },
  fr: {
    greeting: (name) => `Bonjour${name ? ` ${name}` : ''} ! Comment puis-je vous aider ?`,
    thanks: 'Avec plaisir !',
    clarify: offer(
      (q) => `Vous voulez dire :\n${choices(q)}\nRépondez avec le numéro.`,
      (q) => `Votre question est-elle celle-ci ? ${q}\nSi oui, répondez oui ; sinon, dites-nous-en plus.`,
    ),
    about: (q) => `Pour ${q} :`,
    followUp: 'un membre de notre équipe vous répondra très vite.',
  },
  de: {
    greeting: (name) => `Hallo${name ? ` ${name}` : ''}! Wie kann ich helfen?`,
    thanks: 'Gern geschehen!',
    clarify: offer(
      (q) => `Meinen Sie:\n${choices(q)}\nAntworten Sie mit der Nummer.`,
      (q) => `Ist das Ihre Frage? ${q}\nWenn ja, antworten Sie mit Ja; sonst schreiben Sie uns mehr.`,
    ),
    about: (q) => `Zu ${q}:`,
    followUp: 'Jemand aus unserem Team meldet sich in Kürze.',
  },
  it: {
    greeting: (name) => `Ciao${name ? ` ${name}` : ''}! Come posso aiutarti?`,
    thanks: 'Prego!',
    clarify: offer(
      (q) => `Intendi:\n${choices(q)}\nRispondi con il numero.`,
      (q) => `È questa la tua domanda? ${q}\nSe sì, rispondi sì; altrimenti scrivici di più.`,
    ),
    about: (q) => `Su ${q}:`,
    followUp: 'una persona del nostro team ti risponderà a breve.',
  },
};

export const textsFor = (language: string): Texts => TEXTS[baseLanguage(language)] ?? TEXTS.en!;
