/**
 * What a scenario is: one question about llmjson's speed against its peers, answered by
 * timing entrants on cases (inputs), and reported as tables of ratios. The types live in
 * types.ts, at the bottom of the import graph; the scenarios import them from here.
 */

export type { Case, Contestant, RunContext, Scenario, Section, Table, TargetResult } from './types.js';
