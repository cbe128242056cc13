/** Exit codes scripts can branch on (documented in `--help` and the README). */
export const ExitCode = {
  /**
   * Success. JSONL with some lines dropped is still a success (unless `--strict`). A reader of
   * stdout that goes away (`| head -1`) is not a failure: printing stops, and batch still writes
   * its `--report`, run its `--output-file`; 0 then says they were (one that cannot be written
   * is 2).
   */
  ok: 0,
  /**
   * Usage or configuration error: bad flag (or a single-valued flag given twice), unreadable or
   * invalid schema, unresolvable reference, an input or output file that cannot be used (a file
   * read whole that is not a regular file or is larger than its cap, an output that is an input).
   * Nothing was read.
   */
  usage: 2,
  /** The model server failed: connection refused, an HTTP error, an error event in its stream, or a timeout (`run --timeout`, `--total-timeout`). */
  provider: 3,
  /** Format error: no JSON, a schema mismatch or past `--max-length` (json), a dropped line with `--strict`, fewer than `--require N` objects, a value holding a number beyond the double range (it cannot be printed). */
  format: 4,
  /** Interrupted (SIGINT). */
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export const EXIT_CODES_HELP = `Exit codes:
  0    success (JSONL with dropped lines is still a success unless --strict)
  2    usage or configuration error (bad flag, a flag given twice, unreadable
       or invalid schema, unresolvable --schema-ref, an input file that cannot
       be read or is a directory, a file read whole that is not a regular file
       or is larger than 64 MiB, an output file that cannot be written or is
       an input); reported before any input is read
  3    the model server failed: connection refused, an HTTP error status, an
       error event in its stream (--input, run), or it sent nothing for
       --timeout seconds / did not finish within --total-timeout (run)
  4    format error: json mode found no JSON, it does not match the schema, or
       the answer is longer than --max-length; a dropped line with --strict;
       fewer than --require N valid objects; an answer cut off at the token
       limit (finish reason "length") or a provider stream that ended before
       the answer did; a value holding a number beyond the double range
       (1e999: JSON cannot print it), reported as out-of-range
  130  interrupted
A reader of stdout that goes away (| head -1) is no error: printing stops;
batch still writes its --report and run its --output-file, and the exit
code says whether they were written (0, or 2 when one was not).`;

/** A usage or configuration problem: printed as one line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
