/**
 * Every AG-UI function's option names: for the docs test (docs/guide/options.md, checked by
 * test/docs/options-tables.test.ts), never for the functions themselves (each checks its own
 * list, kept beside its options type). Not exported from the package entry.
 */

import { AG_UI_RUN_OPTIONS } from './run-events.js';
import { TO_AG_UI_STATE_OPTIONS } from './state-events.js';
import { TO_AG_UI_TOOL_CALLS_OPTIONS } from './tool-call-events.js';

export const AG_UI_OPTION_NAMES: Readonly<Record<string, readonly string[]>> = {
  toAgUiToolCalls: TO_AG_UI_TOOL_CALLS_OPTIONS,
  toAgUiState: TO_AG_UI_STATE_OPTIONS,
  agUiRun: AG_UI_RUN_OPTIONS,
};
