import { answersOnly, WEEKDAYS, type SendingWindow, type Weekday } from '../../../../api-contract.js';
import type { Campaign } from '../../answers.js';
import type { FieldLabels } from '../../components/problems.js';

/** The form's copy of a campaign: the same fields, with the optional texts as strings (empty for none) and the sending window as a switch and its three values. */
export interface Draft {
  name: string;
  type: Campaign['type'];
  language: string;
  listId: string;
  channel: Campaign['channel'];
  customChannel: string;
  openingTemplate: string;
  openingTemplateParams: string[];
  reengagementTemplate: string;
  reengagementTemplateParams: string[];
  templateLanguage: string;
  openingMessage: string;
  triggerOnNewContacts: boolean;
  status: Campaign['status'];
  sendRate: string;
  windowOn: boolean;
  window: NonNullable<Campaign['sendingWindow']>;
  followUps: Campaign['followUps'];
  bot: Campaign['bot'];
}

/** The time zone this browser runs in: where a new window starts. */
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** The form for a new campaign: what the API would default to, so saving it untouched creates the same. */
export const NEW_DRAFT: () => Draft = () => ({
  name: '',
  type: 'combined',
  language: 'en',
  listId: '',
  channel: 'whatsapp',
  customChannel: '',
  openingTemplate: '',
  openingTemplateParams: [],
  reengagementTemplate: '',
  reengagementTemplateParams: [],
  templateLanguage: '',
  openingMessage: '',
  triggerOnNewContacts: false,
  status: 'draft',
  sendRate: '30/m',
  windowOn: false,
  window: { start: '08:00', end: '21:00', timezone: browserZone(), days: null },
  followUps: { enabled: false, steps: [] },
  bot: { active: true, instructions: '', companyInfo: '', faqs: [], resources: [], goal: '', handoffMessage: null },
});

export function draftOf(c: Campaign): Draft {
  return {
    name: c.name,
    type: c.type,
    language: c.language,
    listId: c.listId ?? '',
    channel: c.channel,
    customChannel: c.customChannel ?? '',
    openingTemplate: c.openingTemplate ?? '',
    openingTemplateParams: c.openingTemplateParams,
    reengagementTemplate: c.reengagementTemplate ?? '',
    reengagementTemplateParams: c.reengagementTemplateParams,
    templateLanguage: c.templateLanguage ?? '',
    openingMessage: c.openingMessage ?? '',
    triggerOnNewContacts: c.triggerOnNewContacts,
    status: c.status,
    sendRate: c.sendRate,
    windowOn: c.sendingWindow !== null,
    window: c.sendingWindow ?? { start: '08:00', end: '21:00', timezone: browserZone(), days: null },
    followUps: c.followUps,
    bot: { ...c.bot, handoffMessage: c.bot.handoffMessage ?? null },
  };
}

const orNull = (s: string) => (s.trim() === '' ? null : s);

/**
 * The body of POST /v1/campaigns or PATCH /v1/campaigns/{id}: every setting, as the form holds it. On Messenger and
 * Instagram the form hides the opening message and template and sends none (the API refuses them there); the draft
 * keeps them in case the channel changes back.
 */
export function bodyOf(d: Draft) {
  const opens = !answersOnly(d.channel);
  return {
    name: d.name,
    type: d.type,
    language: d.language,
    listId: orNull(d.listId),
    channel: d.channel,
    customChannel: orNull(d.customChannel),
    openingTemplate: opens ? orNull(d.openingTemplate) : null,
    openingTemplateParams: d.openingTemplateParams,
    reengagementTemplate: orNull(d.reengagementTemplate),
    reengagementTemplateParams: d.reengagementTemplateParams,
    templateLanguage: orNull(d.templateLanguage),
    openingMessage: opens ? orNull(d.openingMessage) : null,
    triggerOnNewContacts: d.triggerOnNewContacts,
    status: d.status,
    sendRate: d.sendRate,
    sendingWindow: d.windowOn ? d.window : null,
    followUps: d.followUps,
    bot: { ...d.bot, handoffMessage: orNull(d.bot.handoffMessage ?? '') },
  };
}

/** Each day of the week, as the form's checkboxes name it. */
export const DAY_LABEL: Record<Weekday, string> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};

const short = (day: Weekday) => DAY_LABEL[day].slice(0, 3);

/**
 * The days a window opens on as a reader says them: "Every day", "Mon–Fri", "Mon–Wed, Sat, Sun" (three days or more
 * in a row as a range).
 */
export function daysText(days: readonly Weekday[] | null): string {
  if (!days || days.length === WEEKDAYS.length) return 'Every day';
  const runs: Weekday[][] = [];
  for (const day of WEEKDAYS.filter((d) => days.includes(d))) {
    const run = runs.at(-1);
    if (run && WEEKDAYS.indexOf(run.at(-1)!) === WEEKDAYS.indexOf(day) - 1) run.push(day);
    else runs.push([day]);
  }
  return runs
    .map((run) => (run.length >= 3 ? `${short(run[0]!)}–${short(run.at(-1)!)}` : run.map(short).join(', ')))
    .join(', ');
}

/** A sending window in one line: "Mon–Fri, 08:00–21:00 (America/New_York)". */
export const windowText = (w: SendingWindow): string => `${daysText(w.days)}, ${w.start}–${w.end} (${w.timezone})`;

/** The window's days with `day` checked or not; every day is null, as the API keeps a window open every day. */
export function withDay(days: Weekday[] | null, day: Weekday, on: boolean): Weekday[] | null {
  const chosen = WEEKDAYS.filter((d) => (d === day ? on : !days || days.includes(d)));
  return chosen.length === WEEKDAYS.length ? null : chosen;
}

export const STATUS_LABEL: Record<Campaign['status'], string> = {
  draft: 'Draft',
  live: 'Live',
  paused: 'Paused',
  archived: 'Archived',
};
export const CHANNEL_LABEL: Record<Campaign['channel'], string> = {
  whatsapp: 'WhatsApp',
  sms: 'SMS',
  messenger: 'Messenger',
  instagram: 'Instagram',
  custom: 'Custom channel',
};
export const TYPE_LABEL: Record<Campaign['type'], string> = {
  combined: 'Combined (outgoing and incoming)',
  outgoing: 'Outgoing',
  incoming: 'Incoming',
};

/**
 * Each setting's label, by its field in the API's body: the form's inputs show them, and the API's refusals are
 * told in them (components/problems). A row's "#" is its number on screen.
 */
export const CAMPAIGN_LABELS = {
  name: 'Name',
  type: 'Type',
  language: 'Language',
  listId: 'List',
  triggerOnNewContacts: 'Trigger on new contacts added to the list',
  status: 'Status',
  channel: 'Channel',
  customChannel: 'Custom channel label',
  openingMessage: 'Opening message',
  openingTemplate: 'Opening template',
  openingTemplateParams: 'Opening template parameters',
  'openingTemplateParams.#': 'Opening template parameter {{#}}',
  reengagementTemplate: 'Re-engagement template',
  reengagementTemplateParams: 'Re-engagement template parameters',
  'reengagementTemplateParams.#': 'Re-engagement template parameter {{#}}',
  templateLanguage: 'Template language',
  sendRate: 'Send rate',
  sendingWindow: 'Sending window',
  'sendingWindow.start': 'Sending window: from',
  'sendingWindow.end': 'Sending window: until',
  'sendingWindow.timezone': 'Sending window: time zone',
  'sendingWindow.days': 'Sending window: days',
  'followUps.enabled': 'Send follow-ups to contacts who do not answer',
  'followUps.steps': 'Follow-up steps',
  'followUps.steps.#.after': 'Step #: wait',
  'followUps.steps.#.body': 'Step #: message',
  'bot.active': 'The bot answers contacts of this campaign',
  'bot.instructions': 'Instructions',
  'bot.companyInfo': 'Company information',
  'bot.faqs': 'FAQs',
  'bot.faqs.#.question': 'FAQ #: question',
  'bot.faqs.#.answer': 'FAQ #: answer',
  'bot.resources': 'Resources',
  'bot.resources.#': 'Resource #',
  'bot.goal': 'Goal',
  'bot.handoffMessage': 'Hand-off message',
} as const satisfies FieldLabels;
