/**
 * JSON Schema validation compiled ahead of time: `compileStandaloneModule(schema)` returns the
 * source of an ES module (what `llmjson compile schema.json > validate.js` prints) whose default
 * export is a Standard Schema v1 that validates with ajv's standalone code. A page whose
 * Content-Security-Policy forbids `eval` imports it and passes it as `schema`: nothing compiles
 * at run time, and no `new Function` or `eval` appears in the module or in what it imports
 * (docs/decisions/017-validator-seam.md).
 *
 * Contract:
 * - The module imports only run-time helpers a bundler resolves: ajv's runtime modules
 *   (`ajv/dist/runtime/*.js`), ajv-formats' format table (`ajv-formats/dist/formats.js`, when
 *   the schema uses `format`) and `linearRegExp`/`useLinearFormats` from `@llmjson/core/ajv`
 *   (when it uses `pattern`, `patternProperties` or `format`); they must be resolvable from where
 *   the module is written (they are dependencies of `@llmjson/core`; with pnpm's strict layout,
 *   add `ajv` and `ajv-formats` to the project). `@llmjson/core/ajv` re-exports the compiler
 *   too, but those exports are side-effect free: a bundler keeps only the two helpers.
 * - The default export is `{ '~standard': { version: 1, vendor: 'llmjson', validate, jsonSchema } }`.
 *   `validate(value)` returns `{ value }` or `{ issues }`, each issue `{ message, path, code }`:
 *   `code` ajv's keyword, `path` the keys of ajv's `instancePath` (`~1`, `~0` unescaped, array
 *   indices as numbers), `message` ajv's, with the property or allowed values appended for
 *   `additionalProperties` and `enum` as `compileSchema`'s one-line message shows them.
 *   `jsonSchema.input()` and `.output()` return the schema, so the engines find the same
 *   discriminator dispatch as for the JSON Schema itself.
 * - Compiled as `compileSchema` (ajv-validator.ts) compiles: same dialects (draft-04 to
 *   2020-12, by the root's `$schema`; draft-04 code needs nothing from ajv-draft-04 at run time,
 *   only ajv's runtime modules), options and formats, reference cycles rejected, every pattern and format linear-time (a pattern that
 *   cannot be, such as a lookahead, is a ConfigurationError SCHEMA_INVALID), the schema
 *   meta-validated; every problem is a ConfigurationError raised here, never in the module.
 * - Quiet: what ajv notices while compiling (an unknown format) goes to `options.onWarning`, as
 *   `compileSchema` puts it on `CompiledSchema.warnings`; nothing is printed.
 * - Dispatch parity: when `findDispatch` finds a discriminator (or `options.discriminator`
 *   names one), one validator is generated per branch, each compiled in place from its JSON
 *   pointer into the root as `compileSchema` compiles it, plus one for the root's other
 *   keywords when it has any; `validate` runs only those for the branch the value names, so
 *   a value gets the errors (paths, keywords, messages) the run-time ajv path gives. A value
 *   naming no branch gets the `dispatchFailure` error (`type` or `discriminator`) the engines
 *   report. An explicit discriminator that cannot apply is DISCRIMINATOR_INVALID.
 * - Engines given the module as `schema` should be given the same `discriminator` option it
 *   was compiled with (the default: detected the same way).
 * - Inert strings: no string of the schema (ids, keys, patterns, values, messages, the file
 *   name) can end the literal or comment it is written in, here or in the module. Each reaches
 *   code only as a JSON string literal (ajv's and ours) or, the file name, in a one-line
 *   comment; ajv's `sourceURL` comments, which carry `$id`, are not emitted (see
 *   `withoutSourceUrls`); a `"__proto__"` key in a value ajv writes as an object literal stays a
 *   key (`ownProtoKeys`). The module holds no `</` and no `<!--` outside what they mean in a
 *   literal (written `<\/`, `<\!--`) and no raw U+2028 or U+2029, so it can also be inlined in an
 *   HTML `<script type="module">` element.
 */

import { type Ajv, Name } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { ConfigurationError, ConfigurationErrorCode } from '../../diagnostics/configuration-error.js';
import { quoteInput } from '../../diagnostics/diagnostics.js';
import { isObject } from '../json-pointer.js';
import { rejectReferenceCycles } from '../reference-cycles.js';
import { type CompileOptions, findDispatch, type JsonSchema, type SchemaWarning } from '../schema-validator.js';
import { type AjvSetup, ajvFor, configurationErrors, schemaId } from './ajv-validator.js';

type StandaloneCode = (ajv: Ajv, refs: Record<string, string>) => string;
// CommonJS: its default export arrives either as the function or wrapped.
const standaloneCode: StandaloneCode =
  (standaloneModule as unknown as { default?: StandaloneCode }).default ??
  (standaloneModule as unknown as StandaloneCode);

export interface StandaloneOptions extends CompileOptions {
  /** Where the schema came from (a file name), named in the module's header comment. Default: none. */
  readonly name?: string;
  /**
   * Receives each warning about the schema (an unknown format…), once, before the module's
   * source is returned. Default: none (warnings are dropped; nothing is printed).
   */
  readonly onWarning?: (warning: SchemaWarning) => void;
}

/** The module-level name the generated code gives the linear-time format table. */
const FORMATS = 'llmjson_formats';

/**
 * ajv's `/*# sourceURL=<$id> *\/` comment, JSON-quoted as ajv writes it. ajv opens every function
 * it generates for a schema with an `$id` with one when `code.source` is set (standalone code
 * needs it). The `$id` is JSON-quoted, which keeps it inside a string literal but not inside a
 * comment: an `$id` holding `*\/` ends the comment, and the rest of it would be code, run when
 * ajv builds the function in this process and again in the module. The pattern matches only the
 * comments themselves: a JSON string literal never holds an unescaped `"`, so `sourceURL="` cannot
 * start inside one, and the quoted `$id` ends at its first unescaped `"`.
 */
const SOURCE_URL = /\/\*# sourceURL="(?:[^"\\]|\\.)*" \*\//g;

/**
 * `code` without ajv's sourceURL comments: what ajv compiles here (its `code.process` hook) and
 * what the module holds. They only name the function in a debugger's list of sources.
 */
function withoutSourceUrls(code: string): string {
  const stripped = code.replace(SOURCE_URL, '');
  // A comment ajv writes some other way is not removed: refuse rather than emit it.
  if (stripped.includes('/*# sourceURL="')) {
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaInvalid,
      'invalid schema: the validator ajv generated for it carries a sourceURL comment llmjson cannot remove; remove "*/" from every "$id"',
    );
  }
  return stripped;
}

/**
 * ajv writes the schema values its code reads (an `enum`'s members, a `const`) as JSON object
 * literals, where a `"__proto__"` key sets the object's prototype instead of making a property:
 * `{"const": {"__proto__": {"a": 1}}}` would accept `{}` and refuse what compileSchema accepts.
 * As a computed key (`["__proto__"]:`) it is a property, as JSON.parse makes it. In generated
 * code `"__proto__":` after `{` or `,` is always such a key: inside a string literal the quotes
 * would be escaped.
 */
function ownProtoKeys(code: string): string {
  return code.replace(/([{,])"__proto__":/g, '$1["__proto__"]:');
}

/**
 * The module's text made safe to inline in an HTML `<script>` element, with the same meaning:
 * `</` and `<!--` occur only inside string literals and comments (generated code has no `<`
 * followed by `/` or `!`), where `<\/` and `<\!--` read the same; raw U+2028 and U+2029
 * occur only inside string literals, where their escapes read the same.
 */
function htmlSafe(module: string): string {
  return module
    .replace(/<\//g, '<\\/')
    .replace(/<!--/g, '<\\!--')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * An ajv instance for `schema`'s dialect, configured as compileSchema's, that generates
 * standalone ES module code; `formats` names the table the module builds (ajv-formats would
 * otherwise point the code at its own, backtracking, patterns); `process` removes the
 * sourceURL comments before ajv compiles what it generated.
 */
function standaloneAjvFor(schema: JsonSchema): AjvSetup {
  return ajvFor(schema, {
    source: true,
    esm: true,
    lines: true,
    formats: new Name(FORMATS),
    process: withoutSourceUrls,
  });
}

function compiled(ajv: Ajv, id: string, what: string): void {
  configurationErrors(what, () => {
    if (ajv.getSchema(id) === undefined) throw new Error(`${quoteInput(id)} could not be compiled`);
  });
}

/**
 * ajv's standalone code made an ES module that needs no CommonJS: each `require("m")` becomes
 * an import. ajv's runtime helpers are CommonJS modules with `exports.default`, which bundlers
 * and Node hand over differently (Node's default import is `module.exports`, a bundler's may be
 * `exports.default`): `llmjson_cjs` recovers `module.exports` from either. `@llmjson/*` modules
 * are ES modules, imported by name so that a bundler keeps only what is used.
 */
function esModuleCode(code: string): { readonly imports: string[]; readonly body: string } {
  const imports: string[] = [];
  const namespaces = new Map<string, string>();
  const named = new Map<string, Set<string>>();
  const body = code
    .replace(/^"use strict";\s*/, '')
    .replace(/^export const /gm, 'const ')
    .replace(/require\("([^"\\]+)"\)(\.[A-Za-z_$][\w$]*)?/g, (_match, specifier: string, property?: string) => {
      if (specifier.startsWith('@llmjson/') && property !== undefined) {
        const name = property.slice(1);
        let names = named.get(specifier);
        if (names === undefined) {
          names = new Set();
          named.set(specifier, names);
        }
        names.add(name);
        return `llmjson_${name}`;
      }
      let namespace = namespaces.get(specifier);
      if (namespace === undefined) {
        namespace = `llmjson_module${namespaces.size}`;
        namespaces.set(specifier, namespace);
      }
      return `llmjson_cjs(${namespace})${property ?? ''}`;
    });
  for (const [specifier, namespace] of namespaces) {
    // Packages without an exports map (ajv) need the file's extension under Node's ESM resolution.
    const path = specifier.startsWith('ajv/') && !specifier.endsWith('.js') ? `${specifier}.js` : specifier;
    imports.push(`import * as ${namespace} from ${JSON.stringify(path)};`);
  }
  for (const [specifier, names] of named) {
    const list = [...names].map((name) => `${name} as llmjson_${name}`).join(', ');
    imports.push(`import { ${list} } from ${JSON.stringify(specifier)};`);
  }
  return { imports, body };
}

/**
 * Hands each warning to `onWarning`. What the user's callback throws is not the compiler's
 * failure: it is dropped, as the engines drop what `onDiagnostic` throws.
 */
function deliverWarnings(
  warnings: readonly SchemaWarning[],
  onWarning: ((warning: SchemaWarning) => void) | undefined,
): void {
  if (onWarning === undefined) return;
  for (const warning of warnings) {
    try {
      onWarning(warning);
    } catch {
      // The callback's own failure; the module is still right.
    }
  }
}

/** The run-time part of the module: issues from ajv's errors, dispatch, the Standard Schema. */
const RUNTIME = `
function llmjson_path(pointer, value) {
  if (pointer === '') return [];
  const path = [];
  let node = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const segment = Array.isArray(node) && /^(?:0|[1-9][0-9]*)$/.test(key) ? Number(key) : key;
    path.push(segment);
    node = node !== null && typeof node === 'object' ? node[segment] : undefined;
  }
  return path;
}

// At most 200 characters of user input in a message, as the engines quote it.
function llmjson_quote(text) {
  if (text.length <= 200) return text;
  const code = text.charCodeAt(200);
  const end = code >= 0xdc00 && code <= 0xdfff ? 199 : 200;
  return text.slice(0, end) + '… (' + text.length + ' characters)';
}

function llmjson_message(error) {
  const message = error.message ?? 'is invalid';
  const params = error.params ?? {};
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return message + ' ("' + llmjson_quote(params.additionalProperty) + '")';
  }
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return message + ' (' + llmjson_quote(params.allowedValues.map((v) => JSON.stringify(v)).join(', ')) + ')';
  }
  return message;
}

function llmjson_issues(errors, value) {
  return {
    issues: (errors ?? []).map((error) => ({
      message: llmjson_message(error),
      path: llmjson_path(error.instancePath, value),
      code: error.keyword,
    })),
  };
}

function llmjson_run(validate, value) {
  return validate(value) ? { value } : llmjson_issues(validate.errors, value);
}
`;

/** The dispatching `validate`: the named branch (and the root's other keywords), as compileSchema runs them. */
function dispatchCode(
  property: string,
  constants: readonly (string | number | boolean)[],
  branches: readonly string[],
  base: string | undefined,
): string {
  const quotedProperty = quoteInput(property);
  const allowed = quoteInput(constants.map((c) => JSON.stringify(c)).join(', '));
  const cases = constants
    .map((constant, i) => `    case ${JSON.stringify(constant)}: return ${branches[i]};`)
    .join('\n');
  const baseCheck = base === undefined ? '' : `  if (!${base}(value)) return llmjson_issues(${base}.errors, value);\n`;
  return `
const llmjson_property = ${JSON.stringify(property)};

function llmjson_describe(tag) {
  if (typeof tag === 'string') return JSON.stringify(llmjson_quote(tag));
  if (typeof tag === 'object' && tag !== null) return Array.isArray(tag) ? 'an array' : 'an object';
  return llmjson_quote(String(tag));
}

function llmjson_branch(tag) {
  switch (tag) {
${cases}
  }
  return undefined;
}

function llmjson_validate(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { issues: [{ message: 'must be object', path: [], code: 'type' }] };
  }
  // Own property only: a discriminator named constructor that the value lacks is missing.
  const tag = Object.hasOwn(value, llmjson_property) ? value[llmjson_property] : undefined;
  const branch = llmjson_branch(tag);
  if (branch === undefined) {
    const message = tag === undefined
      ? ${JSON.stringify(`missing discriminator "${quotedProperty}"; expected one of ${allowed}`)}
      : ${JSON.stringify(`unknown discriminator "${quotedProperty}": `)} + llmjson_describe(tag) + ${JSON.stringify(`; expected one of ${allowed}`)};
    return { issues: [{ message, path: tag === undefined ? [] : [llmjson_property], code: 'discriminator' }] };
  }
${baseCheck}  return llmjson_run(branch, value);
}
`;
}

/**
 * The source of an ES module whose default export validates `schema` as `compileSchema` does,
 * with code generated now: see the contract above. Throws ConfigurationError for a schema
 * `compileSchema` would refuse, or a discriminator that cannot apply.
 */
export function compileStandaloneModule(schema: JsonSchema, options: StandaloneOptions = {}): string {
  if (typeof schema !== 'boolean' && !isObject(schema)) {
    throw new ConfigurationError(ConfigurationErrorCode.schemaInvalid, 'a schema must be an object or a boolean');
  }
  const setup = standaloneAjvFor(schema);
  const { ajv, draft07, dialect } = setup;
  const ownId = schemaId(schema, dialect);
  const rootId = ownId ?? 'llmjson:root';
  if (typeof schema === 'boolean') {
    configurationErrors('schema', () => ajv.addSchema(schema, rootId));
  } else {
    rejectReferenceCycles(schema, rootId.replace(/#\/?$/, ''), draft07, ajv);
    configurationErrors(
      'schema',
      () => ajv.addSchema(ownId !== undefined ? schema : { ...schema, [dialect.idKeyword]: rootId }),
      { ajv, schema },
    );
  }
  // The whole schema is compiled even when only its branches are exported: it is what
  // compileSchema compiles, so the same schemas are refused for the same reasons.
  compiled(ajv, rootId, 'schema');
  const warnings = setup.warnings();

  const refs: Record<string, string> = {};
  let validate: string;
  const dispatch =
    options.discriminator === false || typeof schema === 'boolean'
      ? undefined
      : findDispatch(schema, options.discriminator);
  if (typeof options.discriminator === 'string' && (dispatch === undefined || typeof dispatch === 'string')) {
    throw new ConfigurationError(
      ConfigurationErrorCode.discriminatorInvalid,
      dispatch === undefined
        ? `discriminator "${quoteInput(options.discriminator)}" cannot apply to a boolean schema`
        : `discriminator "${quoteInput(options.discriminator)}" cannot be used: ${dispatch}`,
    );
  }
  if (dispatch === undefined || typeof dispatch === 'string' || typeof schema === 'boolean') {
    refs.llmjson_root = rootId;
    validate = 'function llmjson_validate(value) {\n  return llmjson_run(llmjson_root, value);\n}\n';
  } else {
    const rest: Record<string, unknown> = { ...schema };
    delete rest[dispatch.keyword];
    delete rest[dialect.idKeyword];
    const hasOtherConstraints = Object.keys(rest).some(
      (k) => !['$schema', '$defs', 'definitions', 'title', 'description', '$comment', 'examples'].includes(k),
    );
    let base: string | undefined;
    if (hasOtherConstraints) {
      const restId = 'llmjson:rest';
      configurationErrors('schema', () => ajv.addSchema({ ...rest, [dialect.idKeyword]: restId }));
      compiled(ajv, restId, 'schema');
      base = 'llmjson_rest';
      refs[base] = restId;
    }
    const branches = dispatch.constants.map((_constant, i) => {
      const pointer = `${rootId}#/${dispatch.keyword}/${i}`;
      compiled(ajv, pointer, `${dispatch.keyword} branch ${i}`);
      refs[`llmjson_branch${i}`] = pointer;
      return `llmjson_branch${i}`;
    });
    validate = dispatchCode(dispatch.property, dispatch.constants, branches, base);
  }

  const generated = ownProtoKeys(withoutSourceUrls(configurationErrors('schema', () => standaloneCode(ajv, refs))));
  const { imports, body } = esModuleCode(generated);
  if (body.includes(FORMATS)) {
    imports.push(
      "import * as llmjson_ajvFormats from 'ajv-formats/dist/formats.js';",
      "import { useLinearFormats as llmjson_useLinearFormats } from '@llmjson/core/ajv';",
    );
  }
  const formatsCode = body.includes(FORMATS)
    ? `
// ajv-formats' formats, each pattern replaced by its linear-time check as compileSchema replaces it.
const ${FORMATS} = { ...llmjson_cjs(llmjson_ajvFormats).fullFormats };
llmjson_useLinearFormats({
  formats: ${FORMATS},
  addFormat(name, format) {
    ${FORMATS}[name] = format;
  },
});
`
    : '';
  deliverWarnings(warnings, options.onWarning);
  const header = [
    `// Generated by \`llmjson compile\`${options.name === undefined ? '' : ` from ${options.name.replace(/[\r\n\u2028\u2029]/g, ' ')}`}: JSON Schema validation as ajv standalone code.`,
    '// Do not edit: regenerate it when the schema changes. Nothing is compiled at run time: fit for a strict CSP.',
  ];
  return htmlSafe(
    `${[
      ...header,
      ...imports,
      '',
      'const llmjson_cjs = (namespace) => (namespace.default && namespace.default.__esModule ? namespace.default : namespace);',
      formatsCode,
      body.trim(),
      RUNTIME,
      validate,
      `const llmjson_schema = JSON.parse(${JSON.stringify(JSON.stringify(schema))});`,
      '',
      'export default {',
      "  '~standard': {",
      '    version: 1,',
      "    vendor: 'llmjson',",
      '    validate: llmjson_validate,',
      '    jsonSchema: {',
      '      input: () => llmjson_schema,',
      '      output: () => llmjson_schema,',
      '    },',
      '  },',
      '};',
    ].join('\n')}\n`,
  );
}
