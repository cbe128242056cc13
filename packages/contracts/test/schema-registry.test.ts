import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BUILTIN_SCHEMA_ROOT,
  ContractConfigurationError,
  checkCatalog,
  createSchemaRegistry,
  defaultSchemaRoots,
  readSchemaFile,
  schemaRefPath,
} from '@llmjson/contracts';
import { describe, expect, test } from 'vitest';

function tree(files: Record<string, string | Uint8Array>): string {
  const dir = mkdtempSync(join(tmpdir(), 'llmjson-roots-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const object = (title: string) => JSON.stringify({ title, type: 'object' });

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ContractConfigurationError);
    return (error as ContractConfigurationError).code;
  }
  throw new Error('expected a ContractConfigurationError');
}

describe('schema references', () => {
  test('a dotted reference names a file under the root', () => {
    expect(schemaRefPath('tnh.sectioning.default_section.v1')).toBe('tnh/sectioning/default_section/v1.schema.json');
    expect(schemaRefPath('single')).toBe('single.schema.json');
    expect(schemaRefPath('a-b.C_9')).toBe('a-b/C_9.schema.json');
  });

  test.each([
    ['', 'it is empty'],
    ['a..b', 'empty segment'],
    ['.a', 'empty segment'],
    ['a.', 'empty segment'],
    ['..', 'empty segment'],
    ['a/b', 'path separator'],
    ['a\\b', 'path separator'],
    ['/etc/passwd', 'path separator'],
    ['C:.x', 'other characters'],
    ['a.b c', 'other characters'],
    ['a.b%2e', 'other characters'],
    ['sché.ma', 'other characters'],
    ['a.b\n', 'other characters'],
  ])('%j is rejected (%s) before the file system is touched', (ref, why) => {
    const registry = createSchemaRegistry({ roots: ['/nonexistent-root'] });
    expect(() => registry.resolve(ref)).toThrow(why);
    expect(codeOf(() => registry.resolve(ref))).toBe('SCHEMA_REF_INVALID');
  });

  test('roots are searched in order; the result says which root won', () => {
    const high = tree({ 'a/b/v1.schema.json': object('high') });
    const low = tree({ 'a/b/v1.schema.json': object('low'), 'only/low/v1.schema.json': object('only low') });
    const registry = createSchemaRegistry({
      roots: [
        { dir: high, kind: 'workspace' },
        { dir: low, kind: 'user' },
      ],
    });
    const a = registry.resolve('a.b.v1');
    expect(a.schema).toEqual({ title: 'high', type: 'object' });
    expect(a.root).toEqual({ dir: high, kind: 'workspace' });
    expect(a.file).toBe(join(high, 'a/b/v1.schema.json'));
    const b = registry.resolve('only.low.v1');
    expect(b.root.kind).toBe('user');
    // Read and compiled once: the same objects every time.
    expect(registry.resolve('a.b.v1')).toBe(a);
    expect(registry.compile('a.b.v1')).toBe(registry.compile('a.b.v1'));
  });

  test('default roots: workspace, then user ($XDG_CONFIG_HOME or ~/.config), then built-in', () => {
    expect(defaultSchemaRoots({ cwd: '/w', env: { XDG_CONFIG_HOME: '/x' }, home: '/h' })).toEqual([
      { dir: '/w/schemas/prompt-contracts', kind: 'workspace' },
      { dir: '/x/llmjson/schemas/prompt-contracts', kind: 'user' },
      { dir: BUILTIN_SCHEMA_ROOT, kind: 'builtin' },
    ]);
    expect(defaultSchemaRoots({ cwd: '/w', env: {}, home: '/h' })[1]).toEqual({
      dir: '/h/.config/llmjson/schemas/prompt-contracts',
      kind: 'user',
    });
  });

  test('the built-in root ships schemas, and a workspace file overrides one', () => {
    const empty = tree({});
    const builtin = createSchemaRegistry({ cwd: empty, env: {}, home: empty });
    const found = builtin.resolve('llmjson.kg.definition_relationship.v1');
    expect(found.root.kind).toBe('builtin');
    expect(found.schema).toMatchObject({ oneOf: [{}, {}] });
    const workspace = tree({
      'schemas/prompt-contracts/llmjson/kg/definition_relationship/v1.schema.json': object('mine'),
    });
    const overridden = createSchemaRegistry({ cwd: workspace, env: {}, home: empty });
    expect(overridden.resolve('llmjson.kg.definition_relationship.v1').root.kind).toBe('workspace');
  });

  test('not found: SCHEMA_NOT_FOUND naming the file and every root tried', () => {
    const a = tree({});
    const b = tree({});
    const registry = createSchemaRegistry({ roots: [a, b] });
    expect(codeOf(() => registry.resolve('x.y.v2'))).toBe('SCHEMA_NOT_FOUND');
    expect(() => registry.resolve('x.y.v2')).toThrow(`looked for x/y/v2.schema.json in ${a} (custom), ${b} (custom)`);
  });

  test('a symlink that leaves its root is rejected, never read', () => {
    const outside = tree({ 'secret.json': object('outside') });
    const root = tree({});
    mkdirSync(join(root, 'evil'), { recursive: true });
    symlinkSync(join(outside, 'secret.json'), join(root, 'evil', 'v1.schema.json'));
    const registry = createSchemaRegistry({ roots: [root] });
    expect(codeOf(() => registry.resolve('evil.v1'))).toBe('SCHEMA_REF_INVALID');
    expect(() => registry.resolve('evil.v1')).toThrow('outside its root');
    // A directory symlink that escapes, too.
    const root2 = tree({});
    symlinkSync(outside, join(root2, 'linked'));
    writeFileSync(join(outside, 'v1.schema.json'), object('outside'));
    expect(codeOf(() => createSchemaRegistry({ roots: [root2] }).resolve('linked.v1'))).toBe('SCHEMA_REF_INVALID');
    // A symlink that stays inside its root is fine.
    const root3 = tree({ 'real/v1.schema.json': object('inside') });
    symlinkSync(join(root3, 'real'), join(root3, 'alias'));
    expect(createSchemaRegistry({ roots: [root3] }).resolve('alias.v1').schema).toEqual({
      title: 'inside',
      type: 'object',
    });
  });

  test('a file that is not UTF-8, not JSON, or not a JSON Schema is SCHEMA_INVALID naming the file', () => {
    const root = tree({
      'latin1/v1.schema.json': new Uint8Array([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]),
      'broken/v1.schema.json': '{"type": "object",}',
      'array/v1.schema.json': '[1, 2]',
      'meta/v1.schema.json': JSON.stringify({ type: 'objekt' }),
      'meta2020/v1.schema.json': JSON.stringify({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        prefixItems: 3,
      }),
      'bom/v1.schema.json': `\ufeff${object('bom')}`,
      'draft7/v1.schema.json': JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' }),
      'draft2020/v1.schema.json': JSON.stringify({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'array',
        prefixItems: [{ type: 'string' }],
      }),
    });
    const registry = createSchemaRegistry({ roots: [root] });
    for (const [ref, why] of [
      ['latin1.v1', 'not valid UTF-8'],
      ['broken.v1', 'is not JSON'],
      ['array.v1', 'not a JSON Schema'],
      ['meta.v1', 'is not a valid JSON Schema'],
      ['meta2020.v1', 'is not a valid JSON Schema'],
    ] as const) {
      expect(
        codeOf(() => registry.resolve(ref)),
        ref,
      ).toBe('SCHEMA_INVALID');
      expect(() => registry.resolve(ref)).toThrow(why);
      expect(() => registry.resolve(ref)).toThrow(join(root, ref.split('.')[0] as string, 'v1.schema.json'));
    }
    expect(registry.resolve('bom.v1').schema).toEqual({ title: 'bom', type: 'object' });
    expect(registry.compile('draft7.v1').validate('x').valid).toBe(true);
    expect(registry.compile('draft2020.v1').validate([1]).valid).toBe(false);
  });
});

describe('messages quote user input at most 200 characters', () => {
  const huge = 'a'.repeat(1_000_000);

  /** The error a call throws (it must throw a ContractConfigurationError). */
  function errorOf(run: () => unknown): ContractConfigurationError {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(ContractConfigurationError);
      return error as ContractConfigurationError;
    }
    throw new Error('expected a ContractConfigurationError');
  }

  test('a 10^6-character reference: not found or malformed, the message stays short; the error keeps it whole', () => {
    const root = tree({});
    const registry = createSchemaRegistry({ roots: [root] });
    const missing = errorOf(() => registry.resolve(huge));
    expect(missing.code).toBe('SCHEMA_NOT_FOUND');
    expect(missing.message).toContain(`"${'a'.repeat(200)}… (1000000 characters)"`);
    expect(missing.message).toContain(` in ${root} (custom)`);
    expect(missing.message.length).toBeLessThan(1000);
    expect(missing.ref).toBe(huge);
    for (const ref of [`${huge}/`, `${huge}.b c`, `x.${huge}!`]) {
      const invalid = errorOf(() => registry.resolve(ref));
      expect(invalid.code).toBe('SCHEMA_REF_INVALID');
      expect(invalid.message.length).toBeLessThan(1000);
    }
  });

  test('a schema file holding a long string, a long path, a long prompt id: short messages', () => {
    const root = tree({ 'str/v1.schema.json': JSON.stringify(huge) });
    const holds = errorOf(() => createSchemaRegistry({ roots: [root] }).resolve('str.v1'));
    expect(holds.message).toMatch(/holds "a+… \(1000002 characters\), not a JSON Schema/);
    expect(holds.message.length).toBeLessThan(1000);
    const path = errorOf(() => readSchemaFile(join(root, huge)));
    expect(path.message).toMatch(/: the name is too long$/);
    expect(path.message.length).toBeLessThan(1000);
    const report = checkCatalog(
      { prompts: { [huge]: { prompt: 'x', 'response-type': 'json' } } },
      createSchemaRegistry({ roots: [root] }),
    );
    expect(report.problems.map((p) => p.code)).toEqual(['SCHEMA_REF_MISSING']);
    expect(report.problems[0]?.message.length).toBeLessThan(1000);
  });

  test('any configuration message is bounded (2 000 characters), whatever its maker quoted', () => {
    const error = new ContractConfigurationError('PROMPT_INVALID', `unknown key ${huge}`);
    expect(error.message.length).toBeLessThan(2100);
    expect(error.message).toMatch(/… \(1000012 characters\)$/);
  });
});
