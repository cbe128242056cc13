/**
 * Escapes cut by a chunk boundary: the engines that hand out a string's text as it streams
 * (the partial builder, the JSONL line prefix check) hold back the end of a raw piece that is
 * an unfinished escape until the rest arrives.
 */

/**
 * How many characters at the end of a raw string segment form an unfinished escape: 0, 1 (a
 * backslash), or 2 to 5 (`\u` and 0 to 3 hex digits).
 */
export function unfinishedEscape(raw: string): number {
  // An unfinished escape has its backslash among the last 6 characters; most pieces have none there.
  let near = false;
  for (let k = Math.max(0, raw.length - 6); k < raw.length; k++) {
    if (raw.charCodeAt(k) === 0x5c) {
      near = true;
      break;
    }
  }
  if (!near) return 0;
  let slashes = 0;
  let i = raw.length - 1;
  while (i >= 0 && raw.charCodeAt(i) === 0x5c) {
    slashes++;
    i--;
  }
  if (slashes % 2 === 1) return 1;
  const u = raw.lastIndexOf('\\u');
  if (u >= 0 && raw.length - u < 6) {
    let before = 0;
    for (let j = u - 1; j >= 0 && raw.charCodeAt(j) === 0x5c; j--) before++;
    if (before % 2 === 0) return raw.length - u;
  }
  return 0;
}
