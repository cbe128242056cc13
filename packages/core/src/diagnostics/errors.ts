/**
 * The one error family: every error llmjson throws on purpose is an `LlmjsonError` whose `code`
 * says which failure it is, so a caller can `catch (e) { if (e instanceof LlmjsonError) … e.code }`
 * whatever package raised it. Its subclasses carry what their failure adds:
 * - `ConfigurationError` (core: a broken schema or option, before any input is read);
 * - `ContractViolationError` (core: `failFast` ended a stream; `CONTRACT_VALIDATION_FAILED`);
 * - `ContractConfigurationError` and `ContractValidationError` (@llmjson/contracts);
 * - `ProviderHttpError` (`PROVIDER_HTTP_ERROR`, with the status and an excerpt of the body) and
 *   `ProviderTimeoutError` (`IDLE_TIMEOUT`, `TOTAL_TIMEOUT`) (core's `openAICompatible`,
 *   re-exported by @llmjson/node and @llmjson/web).
 * Bad input is never an error: it is a diagnostic (diagnostics.ts).
 */

export class LlmjsonError extends Error {
  override readonly name: string = 'LlmjsonError';
  /** Which failure this is: a stable, upper-case code (`SCHEMA_INVALID`, `CONTRACT_VALIDATION_FAILED`…). */
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
