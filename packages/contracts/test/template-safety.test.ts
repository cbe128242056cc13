/**
 * Prompt templates render only what the caller passed: names Object.prototype carries
 * (`constructor`, `toString`…) are variables like any other — rendered when given as own
 * properties, a VARIABLES_INVALID error naming them when not — and helpers that write to the
 * console (`log`) or read members the variables do not own (`lookup`), partials, decorators,
 * block parameters and unknown `@data` variables are configuration errors when the prompts are
 * loaded, naming the prompt, the construct and what to write instead. Nothing reaches the
 * console. The syntax the README promises (`{{x}}`, `{{#each}}`, `{{#if}}`, and `{{#unless}}`
 * and `@last` as the fixture catalog uses them) keeps working.
 */
import {
  ContractConfigurationError,
  checkCatalog,
  createPromptManager,
  createSchemaRegistry,
  type Llm,
  renderTemplate,
} from '@llmjson/contracts';
import { afterEach, beforeEach, describe, expect, type MockInstance, test, vi } from 'vitest';
import { thrownBy } from '../../../test/support/thrown.js';

const PROTOTYPE_NAMES = [...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__'])];

const configError = (run: () => unknown): ContractConfigurationError => thrownBy(ContractConfigurationError, run);

/** A manager with one text prompt. */
function single(prompt: string, system?: string) {
  return createPromptManager({ prompts: { p: system === undefined ? { prompt } : { prompt, system } } });
}

let written: MockInstance[] = [];
beforeEach(() => {
  written = [
    vi.spyOn(console, 'log'),
    vi.spyOn(console, 'info'),
    vi.spyOn(console, 'warn'),
    vi.spyOn(console, 'error'),
    vi.spyOn(console, 'debug'),
    vi.spyOn(process.stdout, 'write'),
    vi.spyOn(process.stderr, 'write'),
  ];
});
afterEach(() => {
  // Nothing a template names may be written anywhere (restored first, so one test's writes
  // never count against the next).
  const calls = written.map((spy) => spy.mock.calls);
  vi.restoreAllMocks();
  expect(calls).toEqual(written.map(() => []));
});

describe('prototype names are variables like any other', () => {
  test.each(PROTOTYPE_NAMES)('{{%s}} without that variable is VARIABLES_INVALID naming it', (name) => {
    const error = configError(() => single(`Hello {{[${name}]}}!`).render('p', { text: 'x' }));
    expect(error.code).toBe('VARIABLES_INVALID');
    expect(error.message).toBe(
      `prompt "p" uses {{${name}}} (line 1, column 9), which is not among the variables (given: text)`,
    );
  });

  test.each(['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'])(
    '{{%s}} written plainly, nested, in a loop and as the root of a path is an error too',
    (name) => {
      for (const template of [
        `{{${name}}}`,
        `{{doc.${name}}}`,
        `{{#each items}}{{${name}}}{{/each}}`,
        `{{#with doc}}{{${name}}}{{/with}}`,
        `{{@root.${name}}}`,
        `{{${name}.name}}`,
      ]) {
        const error = configError(() => single(template).render('p', { doc: { title: 't' }, items: [{ a: 1 }] }));
        expect(error.code, template).toBe('VARIABLES_INVALID');
        expect(error.promptId).toBe('p');
        expect(error.message, template).toContain(name);
      }
    },
  );

  test('a nested name the object does not own says where', () => {
    const error = configError(() => single('Title: {{doc.constructor}}').render('p', { doc: { title: 't' } }));
    expect(error.message).toBe(
      'prompt "p" uses {{doc.constructor}} (line 1, column 10), and "constructor" is not among the members given there',
    );
  });

  test('the same names render when the caller passes them as own properties (JSON `__proto__` too)', () => {
    const variables = JSON.parse(
      '{"constructor": "c", "toString": "t", "valueOf": "v", "hasOwnProperty": "h", "__proto__": "p", "doc": {"__proto__": {"constructor": "deep"}}}',
    ) as Record<string, unknown>;
    const rendered = single(
      '{{constructor}} {{toString}} {{valueOf}} {{hasOwnProperty}} {{__proto__}} {{doc.__proto__.constructor}}',
    ).render('p', variables);
    expect(rendered.prompt).toBe('c t v h p deep');
  });

  test('a conditional or a loop over a prototype name sees nothing', () => {
    expect(single('[{{#if constructor}}yes{{else}}no{{/if}}]').render('p', {}).prompt).toBe('[no]');
    expect(single('[{{#each toString}}x{{else}}none{{/each}}]').render('p', {}).prompt).toBe('[none]');
    expect(single('[{{#unless valueOf}}absent{{/unless}}]').render('p', {}).prompt).toBe('[absent]');
  });

  test('a member of a string, number or boolean is an error, not a crash or an empty string', () => {
    for (const template of ['{{text.length}}', '{{n.toFixed}}', '{{flag.constructor}}']) {
      const error = configError(() => single(template).render('p', { text: 'abc', n: 2, flag: true }));
      expect(error.code).toBe('VARIABLES_INVALID');
      expect(error.message).toMatch(/^prompt "p" looks up "\w+" in a string, number or boolean/);
    }
  });

  test('objects, arrays and values a template prints read as before', () => {
    const rendered = single('{{list}} | {{doc}} | {{list.length}} | {{list.[1]}} | {{n}} | {{flag}}').render('p', {
      list: ['a', 'b'],
      doc: { a: 1 },
      n: 0,
      flag: false,
    });
    expect(rendered.prompt).toBe('a,b | [object Object] | 2 | b | 0 | false');
  });

  test('frozen variables, dates and objects without a prototype render; an else-if chain picks its branch', () => {
    const frozen = Object.freeze({ doc: Object.freeze({ title: 'T', tags: Object.freeze(['a', 'b']) }) });
    expect(single('{{doc.title}} {{doc.tags}} {{#each doc.tags}}[{{this}}]{{/each}}').render('p', frozen).prompt).toBe(
      'T a,b [a][b]',
    );
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { name: 'n' });
    const when = new Date(0);
    expect(single('{{bare.name}} {{bare}} {{when}}').render('p', { bare, when }).prompt).toBe(
      `n [object Object] ${String(when)}`,
    );
    expect(configError(() => single('{{when.getTime}}').render('p', { when })).code).toBe('VARIABLES_INVALID');
    const chain = single('{{#if a}}A{{else if b}}B{{else}}C{{/if}}');
    expect(
      [chain.render('p', { a: 1 }), chain.render('p', { b: 1 }), chain.render('p', {})].map((r) => r.prompt),
    ).toEqual(['A', 'B', 'C']);
  });

  test('cyclic and deeply nested variables render without overflowing the stack', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(single('{{self.self.self.name}}').render('p', cyclic).prompt).toBe('loop');
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(single('{{text}}').render('p', { text: 't', deep }).prompt).toBe('t');
  });
});

describe('helpers and syntax templates may not use are configuration errors at load', () => {
  test('{{log x}} is refused when the prompts are loaded, naming the prompt, the helper and what to do', () => {
    const error = configError(() => single('Summarize: {{log text}}{{text}}'));
    expect(error.code).toBe('PROMPT_INVALID');
    expect(error.promptId).toBe('p');
    expect(error.message).toBe(
      'invalid prompt configuration: prompt "p": the template uses the helper "log" (line 1, column 12), which writes to the console; remove it: templates may use {{name}} placeholders, {{#if}}, {{#unless}}, {{#each}} and {{#with}} blocks, and {{@index}}, {{@key}}, {{@first}}, {{@last}}, {{@root}}',
    );
  });

  test.each([
    ['{{log "x" level="error"}}', 'the helper "log"'],
    ['{{#log text}}x{{/log}}', 'the helper "log"'],
    ['{{lookup doc "constructor"}}', 'the helper "lookup"'],
    ['{{helperMissing text}}', 'the helper "helperMissing"'],
    ['{{blockHelperMissing text}}', 'the helper "blockHelperMissing"'],
    ['{{upper text}}', 'the helper "upper"'],
    ['{{#if (log text)}}x{{/if}}', 'the helper "log"'],
    ['{{#if (lookup doc "a")}}x{{/if}}', 'the helper "lookup"'],
    ['{{> header}}', 'a partial'],
    ['{{#> layout}}x{{/layout}}', 'a partial'],
    ['{{#*inline "x"}}y{{/inline}}', 'a decorator'],
    ['{{* decorate}}', 'a decorator'],
    ['{{#each items as |item|}}{{item.name}}{{/each}}', 'block parameters (as |item|)'],
    ['{{@constructor}}', '{{@constructor}}'],
    ['{{#each items}}{{@level}}{{/each}}', '{{@level}}'],
    ['{{if text}}', '"if" outside a block'],
    ['{{#each}}x{{/each}}', '{{#each}} with 0 values'],
    ['{{#if a b}}x{{/if}}', '{{#if}} with 2 values'],
  ])('%s is PROMPT_INVALID naming %s', (template, named) => {
    const error = configError(() => single(template));
    expect(error.code).toBe('PROMPT_INVALID');
    expect(error.promptId).toBe('p');
    expect(error.message).toContain(`prompt "p": the template uses ${named}`);
  });

  test('system templates are checked too, at the top level and per prompt', () => {
    const top = configError(() => createPromptManager({ system: 'You {{log x}}', prompts: { p: { prompt: 'x' } } }));
    expect(top.message).toContain('the top-level "system" template uses the helper "log"');
    const own = configError(() => single('x', '{{lookup a "b"}}'));
    expect(own.message).toContain('prompt "p": the "system" template uses the helper "lookup"');
  });

  test('the catalog check reports each refused template with its prompt, without rendering it', () => {
    const report = checkCatalog(
      { prompts: { fine: { prompt: '{{text}}' }, loud: { prompt: '{{log text}}' } } },
      createSchemaRegistry({ roots: [] }),
    );
    expect(report.problems.map((p) => [p.promptId, p.code])).toEqual([['loud', 'PROMPT_INVALID']]);
    expect(report.problems[0]?.message).toContain('uses the helper "log"');
  });

  test('renderTemplate refuses the same templates when it compiles them, without printing', () => {
    const error = configError(() => renderTemplate('{{log text}}', { text: 'secret' }, 'p'));
    expect(error.code).toBe('PROMPT_INVALID');
    expect(error.message).toContain('prompt "p": the template uses the helper "log"');
    expect(configError(() => renderTemplate('{{lookup doc "toString"}}', { doc: {} })).code).toBe('PROMPT_INVALID');
  });

  test('a refused prompt never reaches the model', async () => {
    const requests: unknown[] = [];
    const llm: Llm = (request) => {
      requests.push(request);
      return 'answer';
    };
    const manager = createPromptManager({ prompts: { ok: { prompt: '{{constructor}}' } } });
    await expect(manager.invoke('ok', { text: 'x' }, llm)).rejects.toMatchObject({ code: 'VARIABLES_INVALID' });
    expect(requests).toEqual([]);
  });
});

describe('what the README promises keeps working', () => {
  test('placeholders, #each with this, #if/else, #unless @last, #with, @index, @key, @first, @root', () => {
    const manager = createPromptManager({
      system: 'System for {{name}}.',
      prompts: {
        p: {
          prompt: [
            'Hi {{name}}.',
            '{{#if focus}}Focus on: {{#each focus}}{{this}}{{#unless @last}}, {{/unless}}{{/each}}.{{else}}No focus.{{/if}}',
            '{{#each focus}}{{@index}}:{{this}}{{#if @first}}*{{/if}} {{/each}}',
            '{{#each doc}}{{@key}}={{this}};{{/each}}',
            '{{#with doc}}{{title}} by {{author}} for {{@root.name}} {{../name}}{{/with}}',
            '{{#if missing}}never{{/if}}{{^focus}}unseen{{/focus}}{{{name}}}',
          ].join('\n'),
        },
      },
    });
    const rendered = manager.render('p', {
      name: 'Ann & <b>',
      focus: ['ATP', 'cells'],
      doc: { title: 'T', author: 'A' },
    });
    expect(rendered.system).toBe('System for Ann & <b>.');
    expect(rendered.prompt).toBe(
      [
        'Hi Ann & <b>.',
        'Focus on: ATP, cells.',
        '0:ATP* 1:cells ',
        'title=T;author=A;',
        'T by A for Ann & <b> Ann & <b>',
        'Ann & <b>',
      ].join('\n'),
    );
    expect(manager.render('p', { name: 'B', focus: [], doc: { title: 'U', author: 'V' } }).prompt).toContain(
      'No focus.',
    );
  });

  test('a section over a variable, and names that look like helpers used as plain variables', () => {
    expect(
      single('{{#doc}}{{title}}{{/doc}} {{log}} {{lookup}}').render('p', { doc: { title: 'T' }, log: 'L', lookup: 'K' })
        .prompt,
    ).toBe('T L K');
  });
});
