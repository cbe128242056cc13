/**
 * Prefix validation of the array element in flight (`prefixCheck` of the element scanner): the
 * implementation the scanner is given as `prefixCheckWith: elementPrefixCheck`. It lives apart
 * from the scanner, which imports only its types, so that a bundle that never checks prefixes
 * does not carry it nor the checker (prefix-check.ts; decision 018). The Node element stream
 * passes it for you.
 *
 * Contract: `begin(start)` when an element starts at absolute offset `start`; `feed(piece, at)`
 * with each following piece of its text, in order and without gaps (`at`: absolute offset of
 * the piece's first character); `stop()` when it ends (or nothing more of it is looked at).
 * `onViolation` is called at most once per element, with the checker's violation (absolute
 * offset, path inside the element).
 *
 * Invariants: chunking does not matter (what is decided depends on the element's text only);
 * each character is read once, by one loop that follows the JSON syntax and drives the checker
 * (strings whose text no check reads crossed without a copy); the text kept is what a
 * key, number or checked string in flight needs, and per open container a small frame (all of
 * it the shared engine's: PrefixFeed, prefix-feed.ts).
 */

import type { CoercionRule } from '../schema/coercion-rules.js';
import type { JsonSchema } from '../schema/schema-validator.js';
import { PrefixChecker, type PrefixViolation } from './prefix-check.js';
import { PrefixFeed } from './prefix-feed.js';

/** What the element scanner drives: one element's text, piece by piece, as it arrives. */
export interface ElementPrefixCheck {
  /** An element starts at absolute offset `start` (its first character, not yet fed). */
  begin(start: number): void;
  /** `piece` continues the element's text at absolute offset `at` (where the last piece ended). */
  feed(piece: string, at: number): void;
  /** Nothing more of the element is checked (it ended, or the scan stopped). */
  stop(): void;
}

/** How the element scanner sets up a prefix check (see ElementPrefixFactory). */
export interface ElementPrefixSetup {
  /** The element's JSON Schema (a Standard Schema's export: `exported`). */
  readonly schema: JsonSchema;
  readonly exported: boolean;
  /** Deepest nesting accepted inside an element; deeper ends its check silently (the scanner reports it). */
  readonly maxDepth: number;
  /** The coercions that will repair the element (`coerce`): nothing they could repair is reported. */
  readonly repairable?: ReadonlySet<CoercionRule> | undefined;
}

/**
 * Makes the prefix check of an element scanner: `undefined` when the schema has nothing a
 * prefix can break (no rule applies), so that the scanner feeds nothing.
 */
export type ElementPrefixFactory = (
  setup: ElementPrefixSetup,
  onViolation: (violation: PrefixViolation) => void,
) => ElementPrefixCheck | undefined;

/** The prefix check of array elements: pass it as `prefixCheckWith` (the Node element stream does). */
export const elementPrefixCheck: ElementPrefixFactory = (setup, onViolation) => {
  const options = setup.repairable === undefined ? {} : { repairable: setup.repairable };
  return new PrefixChecker(setup.schema, () => undefined, setup.exported, options).active
    ? new ElementPrefix(new PrefixFeed(setup.schema, setup.exported, options, setup.maxDepth, onViolation))
    : undefined;
};

/** The element's text, from its first character on, into a PrefixFeed (prefix-feed.ts). */
class ElementPrefix implements ElementPrefixCheck {
  readonly #feed: PrefixFeed;

  constructor(feed: PrefixFeed) {
    this.#feed = feed;
  }

  begin(_start: number): void {
    this.#feed.begin();
  }

  stop(): void {
    this.#feed.stop();
  }

  feed(piece: string, at: number): void {
    this.#feed.write(piece, 0, piece.length, at);
  }
}
