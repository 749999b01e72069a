/**
 * The console reaches the database only through the named queries of libs/persistence
 * (console-queries/<aggregate>/): that is where each query's SQL is in plain sight, its tenant
 * filter goes through tenant-scope.ts, and every write passes by the one place the audit log
 * needs. A service holds a DataSource or an EntityManager only to open a transaction
 * (inTransaction) and hand the manager to those queries.
 *
 * This reads every source file of apps/console/src (specs aside) and fails on:
 *  - an import from typeorm other than DataSource and EntityManager (In, IsNull, Not,
 *    Repository, SelectQueryBuilder, FindOptionsWhere… build queries);
 *  - a call of TypeORM's query API on any receiver (getRepository, createQueryBuilder,
 *    createQueryRunner, query);
 *  - any member but `manager` and `isInitialized` read from a DataSource or EntityManager —
 *    a variable, parameter or property typed so, or the manager a transaction callback gets.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = __dirname;
const ALLOWED_IMPORTS = new Set(['DataSource', 'EntityManager']);
const ALLOWED_MEMBERS = new Set(['manager', 'isInitialized']);
const QUERY_API = new Set(['getRepository', 'getTreeRepository', 'createQueryBuilder', 'createQueryRunner', 'query']);
const DB_TYPE = /^(DataSource|EntityManager)$/;
/** Functions whose callback's first parameter is an EntityManager (a transaction). */
const TRANSACTIONS = new Set(['inTransaction', 'transaction']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Where a file calls TypeORM itself, as `file:line: what`. */
function directTypeormUses(path: string, text = readFileSync(path, 'utf8')): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${relative(SRC, path)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);

  // The names that hold a DataSource or an EntityManager in this file.
  const dbNames = new Set<string>();
  const collect = (node: ts.Node): void => {
    if ((ts.isParameter(node) || ts.isPropertyDeclaration(node) || ts.isVariableDeclaration(node)) && node.type && ts.isIdentifier(node.name)) {
      const type = node.type.getText(file).replace(/^typeof\s+/, '');
      if (DB_TYPE.test(type)) dbNames.add(node.name.text);
    }
    if (ts.isCallExpression(node)) {
      const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name.text : ts.isIdentifier(node.expression) ? node.expression.text : '';
      if (TRANSACTIONS.has(callee)) {
        for (const arg of node.arguments) {
          const first = (ts.isArrowFunction(arg) || ts.isFunctionExpression(arg)) && arg.parameters[0];
          if (first && ts.isIdentifier(first.name)) dbNames.add(first.name.text);
        }
      }
    }
    ts.forEachChild(node, collect);
  };
  collect(file);

  const isDb = (expr: ts.Expression): boolean => {
    if (ts.isIdentifier(expr)) return dbNames.has(expr.text);
    if (ts.isPropertyAccessExpression(expr)) {
      if (expr.expression.kind === ts.SyntaxKind.ThisKeyword) return dbNames.has(expr.name.text);
      return expr.name.text === 'manager' && isDb(expr.expression);
    }
    return false;
  };

  const check = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /^typeorm(\/|$)/.test(node.moduleSpecifier.text)) {
      const bindings = node.importClause?.namedBindings;
      const names = bindings && ts.isNamedImports(bindings) ? bindings.elements.map((e) => (e.propertyName ?? e.name).text) : ['*'];
      if (node.importClause?.name) names.push('default');
      for (const name of names) if (!ALLOWED_IMPORTS.has(name)) at(node, `imports ${name} from ${node.moduleSpecifier.text}`);
    }
    if (ts.isPropertyAccessExpression(node)) {
      const member = node.name.text;
      if (isDb(node.expression) && !ALLOWED_MEMBERS.has(member)) at(node, `${node.getText(file).slice(0, 80)}`);
      else if (QUERY_API.has(member) && ts.isCallExpression(node.parent) && node.parent.expression === node) at(node, `${member}(…)`);
    }
    ts.forEachChild(node, check);
  };
  check(file);
  return found;
}

describe('apps/console reaches the database through named queries only', () => {
  it('no source file calls TypeORM itself (put the query in libs/persistence/src/console-queries/<aggregate>/)', () => {
    const uses = sourceFiles(SRC).flatMap((path) => directTypeormUses(path));
    expect(uses).toEqual([]);
  });

  it('finds each kind of direct use', () => {
    const uses = directTypeormUses(
      join(SRC, 'example.ts'),
      [
        "import { DataSource, In } from 'typeorm';",
        'class A {',
        '  constructor(private readonly dataSource: DataSource) {}',
        '  a() { return this.dataSource.getRepository(X).find({ where: { id: In([1]) } }); }',
        '  b() { return inTransaction(this.dataSource, (em) => em.update(X, {}, {})); }',
        "  c(manager: EntityManager) { return manager.query('SELECT 1'); }",
        '  d() { return this.dataSource.manager.findOneBy(X, {}); }',
        '  e(em: EntityManager) { return findTask(em, "t", 1).then(() => this.dataSource.isInitialized); }',
        '}',
      ].join('\n'),
    );
    expect(uses.map((u) => u.replace(/^[^:]+:/, ''))).toEqual([
      '1: imports In from typeorm',
      '4: this.dataSource.getRepository',
      '5: em.update',
      '6: manager.query',
      '7: this.dataSource.manager.findOneBy',
    ]);
  });
});
