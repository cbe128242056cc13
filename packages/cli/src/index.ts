export { EXIT_CODES_HELP, ExitCode, UsageError } from './exit-codes.js';
export { type MainOptions, main } from './program.js';
export type { Io, Mode } from './stream-command.js';
