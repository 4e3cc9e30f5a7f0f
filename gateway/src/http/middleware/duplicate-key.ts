/**
 * Where an object of a parsed JSON body gives the same key twice (`customData.phone`), if anywhere. JSON.parse keeps
 * the last value without a word, so a client that writes a field twice, building its JSON by hand or merging two
 * maps, would have the other value dropped unseen. `text` is the JSON `parsed` was read from.
 *
 * The keys written are counted first, against those parsed (a few milliseconds for 100 kB); only when they differ is
 * the text read again to name the key.
 */
export function duplicateKeyIn(text: string, parsed: unknown): string | undefined {
  // Outside its strings, a JSON text writes a colon after each key and nowhere else.
  return keysWritten(text) === keysParsed(parsed) ? undefined : keyWrittenTwice(text);
}

/**
 * How many keys a JSON text writes: its colons outside strings, the strings skipped with indexOf, as a base64 file
 * is one long string. The next colon is kept until the reading passes it, so that each character is searched once:
 * looked for again after every string, it made an array of many short strings cost the square of its length.
 */
function keysWritten(text: string): number {
  let keys = 0;
  let colon = text.indexOf(':');
  for (let from = 0; ; ) {
    const quote = text.indexOf('"', from);
    const end = quote === -1 ? text.length : quote;
    for (; colon !== -1 && colon < end; colon = text.indexOf(':', colon + 1)) keys += 1;
    if (quote === -1) return keys;
    let close = text.indexOf('"', quote + 1);
    for (let escapes = backslashesBefore(text, close); escapes % 2 === 1; escapes = backslashesBefore(text, close))
      close = text.indexOf('"', close + 1);
    from = close + 1;
    // A colon inside the string just passed is none of a key's.
    if (colon !== -1 && colon < from) colon = text.indexOf(':', from);
  }
}

function backslashesBefore(text: string, at: number): number {
  let n = 0;
  while (text.charCodeAt(at - 1 - n) === 0x5c) n += 1;
  return n;
}

/** How many keys the parsed value's objects hold; its own stack, as a body may nest deeper than the call stack goes. */
function keysParsed(value: unknown): number {
  let keys = 0;
  const pending = [value];
  while (pending.length) {
    const at = pending.pop();
    if (typeof at !== 'object' || at === null) continue;
    const isArray = Array.isArray(at);
    for (const key in at) {
      if (!isArray) keys += 1;
      const inner = (at as Record<string, unknown>)[key];
      if (typeof inner === 'object' && inner !== null) pending.push(inner);
    }
  }
  return keys;
}

/** Every string of a JSON text, with the colon after it when it is a key; unrolled, so that it never backtracks. */
const TOKEN = /"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?|[{}[\],]/g;

interface Frame {
  /** An object's keys met so far; none for an array. */
  keys?: Set<string>;
  /** The key (an object's) or index (an array's) of the value being read. */
  at: string;
  index: number;
}

/** The path of the first key an object of `text` gives twice. */
function keyWrittenTwice(text: string): string | undefined {
  const frames: Frame[] = [];
  for (const [token, colon] of text.matchAll(TOKEN)) {
    const top = frames.at(-1);
    if (colon !== undefined) {
      if (top?.keys === undefined) continue;
      const quoted = token.slice(0, token.lastIndexOf('"') + 1);
      const key = quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
      if (top.keys.has(key)) return [...frames.slice(0, -1).map((frame) => frame.at), key].join('.');
      top.keys.add(key);
      top.at = key;
    } else if (token === '{') frames.push({ keys: new Set(), at: '', index: 0 });
    else if (token === '[') frames.push({ at: '0', index: 0 });
    else if (token === '}' || token === ']') frames.pop();
    else if (token === ',' && top !== undefined && top.keys === undefined) top.at = String((top.index += 1));
  }
  return undefined;
}
