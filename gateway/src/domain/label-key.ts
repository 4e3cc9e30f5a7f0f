/**
 * A conversation's labels ("Hot lead", "pricing", "demo booked"): short words the team and its workflows put on a
 * conversation to find it again. Two labels are one when they differ only in case; the conversation keeps the
 * spelling it was first given. Dependency-free: the console's bundle compiles it too.
 */

/** The most labels one conversation carries: more than a team reads at a glance, enough for any workflow's tags. */
export const MAX_LABELS = 20;
/** The longest label, as the inbox shows it on a chip. */
export const LABEL_LENGTH = 40;

/** The form in which labels are compared: "Hot lead", "hot lead" and "HOT LEAD" are one label. */
export const labelKey = (label: string) => label.trim().normalize('NFC').toLowerCase();
