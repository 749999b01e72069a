import { describe, expect, it } from 'vitest';
import { CST, parse, Parser } from 'yaml';
import { parseConfigYaml } from './parse-config-yaml';
import { quoteInOnePass } from './quoted-in-one-pass';

describe('parseConfigYaml', () => {
  it('reads every double-quoted scalar as the YAML library does, those it hands over single-quoted and those it leaves', () => {
    const scalars = [
      '""',
      '"plain"',
      '"it\'s ok"',
      '"two \'\' quotes"',
      '"  spaced\t tab  "',
      '"a \\"quoted\\" word"',
      '"back\\\\slash \\/ slash"',
      '"\\u00e9t\\u00e9 \\ud83d\\ude00"',
      '"\\t\\b\\f"',
      '"line\\nbreak"',
      '"carriage\\rreturn"',
      '"yaml \\x41 \\e \\0 \\N \\_"',
      '"folded\n    over\n\n    lines"',
      '"# not a comment: {nor: [a, flow]}"',
    ];
    const text = `version: 1\nretention:\n${scalars.map((s, i) => `  k${i}: ${s}`).join('\n')}\nflow: {${scalars.map((s, i) => `${s.replace(/\n/g, ' ')}: ${i}`).join(', ')}}\n`;
    expect(parseConfigYaml(text)).toEqual({ raw: parse(text) });
  });

  it('hands over a one-line double-quoted scalar whose value has no line break and JSON reads as YAML does; leaves the others', () => {
    const tokens = [...new Parser().parse('a: "x\\"y"\nb: "it\'s"\nc: "\\n"\nd: "\\x41"\ne: "fold\n  ed"\n')];
    quoteInOnePass(tokens);
    const kinds: string[] = [];
    CST.visit(tokens[0] as CST.Document, ({ value }) => void (value && kinds.push(`${value.type} ${'source' in value ? value.source : ''}`)));
    expect(kinds.slice(1)).toEqual(['single-quoted-scalar \'x"y\'', "single-quoted-scalar 'it''s'", 'double-quoted-scalar "\\n"', 'double-quoted-scalar "\\x41"', 'double-quoted-scalar "fold\n  ed"']);
  });

  it('names a line and column in the file for a syntax error after a scalar it handed over', () => {
    const text = 'version: 1\nretention: {"a\\"b": "c\\\\d", x: [1, 2}\n';
    const { errors } = parseConfigYaml(text) as { errors: Array<{ field: string; reason: string }> };
    expect(errors[0]).toEqual({ field: 'file', reason: 'is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 37' });
  });

  it('refuses YAML anchors and aliases (a billion laughs), naming the first and its place', () => {
    const reason = (text: string) => (parseConfigYaml(text) as { errors: Array<{ reason: string }> }).errors.map((e) => e.reason);
    const laughs = 'version: 1\nretention: &a {runsMs: 1}\ncalendars:\n  - *a\n';
    expect(reason(laughs)).toEqual(['YAML anchors and aliases (&name, *name) are not accepted in a tasks file: &a at line 2, column 15']);
    expect(reason('version: 1\nretention: *nowhere\n')).toEqual(['YAML anchors and aliases (&name, *name) are not accepted in a tasks file: *nowhere at line 2, column 12']);
    expect(reason('version: 1\ntasks:\n  - &task\n    name: x\n')).toEqual(['YAML anchors and aliases (&name, *name) are not accepted in a tasks file: &task at line 4, column 5']);
  });

  it('refuses a second document', () => {
    expect(parseConfigYaml('version: 1\n---\nversion: 1\n')).toEqual({ errors: [{ field: 'file', reason: 'is not valid YAML: a tasks file is one YAML document; another starts at line 2, column 1' }] });
  });
});
