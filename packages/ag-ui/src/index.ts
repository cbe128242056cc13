/**
 * `@llmjson/ag-ui`: llmjson in and out of AG-UI, the Agent-User Interaction protocol.
 * Out: a tool-call stream as TOOL_CALL_START / TOOL_CALL_ARGS / TOOL_CALL_END events
 * (`toAgUiToolCalls`), a partial stream's changes as STATE_SNAPSHOT then STATE_DELTA (RFC 6902)
 * events (`toAgUiState`), llmjson's diagnostics as CUSTOM `llmjson.diagnostic` events, and a run
 * around them (`agUiRun`). In: an agent's events as the provider format `ag-ui` (`fromAgUi`), and
 * its state events as change lists (`fromAgUiState`).
 *
 * @module
 */

export { type AgUiStateItem, fromAgUi, fromAgUiState } from './from-ag-ui.js';
export { AG_UI_RUN_OPTIONS, type AgUiRunOptions, agUiRun } from './run-events.js';
export { type AgUiEvents, DIAGNOSTIC_EVENT, diagnosticEvent, type Source, type Subscribable } from './source.js';
export {
  DEFAULT_STATE_THROTTLE,
  mergeChanges,
  type StateEvent,
  TO_AG_UI_STATE_OPTIONS,
  type ToAgUiStateOptions,
  toAgUiState,
} from './state-events.js';
export {
  IncompleteToolCallsError,
  TO_AG_UI_TOOL_CALLS_OPTIONS,
  type ToAgUiToolCallsOptions,
  type ToolCallEvent,
  type ToolCallSource,
  toAgUiToolCalls,
} from './tool-call-events.js';
