/**
 * Figures as text: ratios, their spread over rounds, growth exponents and input sizes. Pure
 * functions at the bottom of the import graph, shared by the harness (progress lines), the
 * report and the scenarios.
 */

import type { Exponent, Ratio } from './types.js';

/** `0.42×`, `1.9×`, `12×`, `340×`: two significant digits are all a ratio can claim. */
export function formatRatio(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (value >= 10) return `${Math.round(value)}×`;
  return `${value.toPrecision(2)}×`;
}

/** A ratio with its spread over rounds when the spread is wide enough to matter (over 10%). */
export function formatSpread(r: Ratio): string {
  const wide = r.max / r.min > 1.1;
  return wide ? `${formatRatio(r.median)} (${formatRatio(r.min)}–${formatRatio(r.max)})` : formatRatio(r.median);
}

/** An exponent to two decimals, with its min–max over rounds when they differ by more than 0.05. */
export function formatExponent(e: Exponent): string {
  const wide = e.max - e.min > 0.05;
  return wide ? `${e.median.toFixed(2)} (${e.min.toFixed(2)}–${e.max.toFixed(2)})` : e.median.toFixed(2);
}

/** `16 KB`, `256 KB`, `1.0 MB` (decimal units, as input sizes are usually quoted). */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${Math.round(bytes / 1000)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
