import type { Page } from 'playwright-core';

/**
 * Stubs of the browser's Notification and AudioContext, for a context's init script (installed before the console's
 * script runs): what the page shows and plays is recorded, and the permission is granted when asked (and only then),
 * for every tab of the context.
 */
export function recordNotifications(): void {
  const w = window as unknown as Record<string, unknown> & { __told: unknown[]; __asked: number; __tones: number };
  w.__told = [];
  w.__asked = 0;
  w.__tones = 0;
  // Granted for the site, as a browser keeps it: every tab of the origin then has it.
  const GRANTED = 'test.notifications-granted';
  class RecordedNotification {
    static get permission(): NotificationPermission {
      return localStorage.getItem(GRANTED) ? 'granted' : 'default';
    }
    static requestPermission(): Promise<NotificationPermission> {
      w.__asked += 1;
      localStorage.setItem(GRANTED, '1');
      return Promise.resolve('granted');
    }
    onclick: (() => void) | null = null;
    constructor(title: string, options?: NotificationOptions) {
      w.__told.push({ title, body: options?.body });
    }
    close(): void {}
  }
  const node = () => ({ connect: (next: unknown) => next });
  class RecordedAudio {
    currentTime = 0;
    destination = {};
    resume = () => Promise.resolve();
    createGain = () => ({
      ...node(),
      gain: { setValueAtTime: () => undefined, exponentialRampToValueAtTime: () => undefined },
    });
    createOscillator = () => ({
      ...node(),
      frequency: { value: 0 },
      start: () => void (w.__tones += 1),
      stop: () => undefined,
    });
  }
  w.Notification = RecordedNotification;
  w.AudioContext = RecordedAudio;
}

/** The desktop notifications the page showed, oldest first. */
export const told = (p: Page) =>
  p.evaluate(() => (window as unknown as { __told: Array<{ title: string; body: string }> }).__told);

/** How many chimes the page played: a chime is two tones. */
export const chimes = async (p: Page) =>
  (await p.evaluate(() => (window as unknown as { __tones: number }).__tones)) / 2;

/** How many times the page asked the browser's permission. */
export const permissionAsked = (p: Page) => p.evaluate(() => (window as unknown as { __asked: number }).__asked);

/** The member's switch on the Inbox page. */
export const notifySwitch = (p: Page) => p.getByLabel(/^Notify me when a contact waits for a reply/);
