// The static call graph behind `npm run hops`: from a named entry function, every function of the repository's
// own `src` files that the calls reach (docs/engineering.md, "A payment, step by step", says what is counted).
import { existsSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/** A function by the file it is declared in and its name: `paySession`, `SessionsStore.complete`, `Port.send`. */
export interface FunctionRef {
  file: string;
  name: string;
}

/** A route handler by the file that mounts it and the route as that file writes it: `POST /:sessionId/pay`. */
interface RouteRef {
  file: string;
  route: string;
}

export type Ref = FunctionRef | RouteRef;

/**
 * A hop the compiler cannot see: a call that leaves the process (an internal HTTP call, a Kafka send) and
 * continues in a handler of another service. A call reaching `from` also reaches every `to`.
 */
export interface Bridge {
  from: FunctionRef;
  to: Ref[];
}

export interface Walk {
  entries: Ref[];
  /** Counted when reached, never walked into: where the walk ends (the Kafka send, the webhook POST). */
  targets: FunctionRef[];
  bridges: readonly Bridge[];
}

export interface Hop {
  /** Path relative to the root, with `/` separators. */
  file: string;
  name: string;
  line: number;
}

export interface WalkResult {
  /** Call expressions in the walked functions that land in a counted function (a function called twice: 2). */
  calls: number;
  hops: Hop[];
  files: string[];
  /** Targets the walk reached (a walk that misses its target is a table out of date, not a short path). */
  reached: FunctionRef[];
}

type FunctionNode = ts.SignatureDeclaration | ts.ClassDeclaration;

/** The repository's services and libraries, as one program; built once, walked many times. */
export class CallGraph {
  private readonly program: ts.Program;
  private readonly checker: ts.TypeChecker;
  private readonly root: string;
  private readonly calls = new Map<FunctionNode, FunctionNode[]>();
  private readonly callSites = new Map<FunctionNode, number>();

  constructor(root: string) {
    this.root = realpathSync(root);
    const rootNames = ['services', 'libs'].flatMap((dir) =>
      ts.sys
        .readDirectory(join(this.root, dir), ['.ts'], ['**/node_modules/**', '**/*.test.ts', '**/test/**'])
        .filter((file) => file.split(sep).includes('src')),
    );
    const base = ts.readConfigFile(join(this.root, 'tsconfig.base.json'), (path) => ts.sys.readFile(path));
    const { options } = ts.parseJsonConfigFileContent(base.config, ts.sys, this.root);
    this.program = ts.createProgram(rootNames, { ...options, noEmit: true });
    this.checker = this.program.getTypeChecker();
  }

  walk(walk: Walk): WalkResult {
    const targets = walk.targets.map((ref) => this.find(ref));
    // A bridge from a function this tree does not have (another version's name) joins nothing.
    const bridges = walk.bridges.flatMap((bridge) => {
      const from = this.findOptional(bridge.from);
      return from ? [{ from, to: bridge.to.map((ref) => this.find(ref)) }] : [];
    });
    const seen = new Set<FunctionNode>();
    const reached = new Set<FunctionNode>();
    const queue = walk.entries.map((ref) => this.find(ref));
    while (queue.length > 0) {
      const node = queue.shift()!;
      if (seen.has(node)) continue;
      seen.add(node);
      if (targets.includes(node)) {
        reached.add(node);
        continue;
      }
      queue.push(...this.callsOf(node));
      for (const bridge of bridges) if (bridge.from === node) queue.push(...bridge.to);
    }
    // A port's method that the table bridges to its implementation is a name, not a step: the call lands on the
    // implementation, which is counted. An interface method the table does not bridge stays a hop (its reader
    // must find the implementation alone).
    const bridgedSignatures = new Set(bridges.filter((b) => isSignature(b.from)).map((b) => b.from));
    const hops = [...seen]
      .filter((node) => !bridgedSignatures.has(node))
      .map((node) => this.hopOf(node))
      .sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
    let calls = 0;
    for (const node of seen) if (!targets.includes(node)) calls += this.callSites.get(node) ?? 0;
    return {
      calls,
      hops,
      files: [...new Set(hops.map((h) => h.file))].sort(),
      reached: walk.targets.filter((_, i) => reached.has(targets[i]!)),
    };
  }

  /** The functions `node`'s body calls (closures inside it included) that are declared in the repository's src. */
  private callsOf(node: FunctionNode): FunctionNode[] {
    const known = this.calls.get(node);
    if (known) return known;
    const found: FunctionNode[] = [];
    let sites = 0;
    const body = ts.isClassDeclaration(node) ? undefined : (node as ts.FunctionLikeDeclaration).body;
    const visit = (child: ts.Node): void => {
      if (ts.isCallExpression(child) || ts.isNewExpression(child)) {
        const callee = this.resolve(child);
        if (callee) sites += 1;
        if (callee && !found.includes(callee)) found.push(callee);
      }
      ts.forEachChild(child, visit);
    };
    if (body) visit(body);
    this.calls.set(node, found);
    this.callSites.set(node, sites);
    return found;
  }

  private resolve(call: ts.CallExpression | ts.NewExpression): FunctionNode | undefined {
    let declaration: ts.Declaration | undefined = this.checker.getResolvedSignature(call)?.declaration;
    if (!declaration || ts.isJSDocSignature(declaration)) {
      const name = ts.isPropertyAccessExpression(call.expression) ? call.expression.name : call.expression;
      let symbol = this.checker.getSymbolAtLocation(name);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
      declaration = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
    }
    const node = declaration && this.functionOf(declaration);
    return node && this.isOwnSource(node.getSourceFile()) ? node : undefined;
  }

  /** The function a declaration stands for: an arrow in a `const`, a method, an overload's implementation. */
  private functionOf(declaration: ts.Node): FunctionNode | undefined {
    if (
      (ts.isVariableDeclaration(declaration) ||
        ts.isPropertyDeclaration(declaration) ||
        ts.isPropertyAssignment(declaration)) &&
      declaration.initializer &&
      (ts.isArrowFunction(declaration.initializer) || ts.isFunctionExpression(declaration.initializer))
    ) {
      return declaration.initializer;
    }
    if (ts.isClassDeclaration(declaration)) return declaration;
    // A function type (`clock: () => Date`) has no code to follow; an interface's method does name a hop.
    if (
      !ts.isFunctionLike(declaration) ||
      ts.isFunctionTypeNode(declaration) ||
      ts.isCallSignatureDeclaration(declaration)
    )
      return undefined;
    const withBody = declaration as ts.FunctionLikeDeclaration;
    if ((ts.isFunctionDeclaration(withBody) || ts.isMethodDeclaration(withBody)) && !withBody.body) {
      const symbol = withBody.name && this.checker.getSymbolAtLocation(withBody.name);
      const implementation = symbol?.declarations?.find((d) => ts.isFunctionLike(d) && 'body' in d && d.body);
      if (implementation) return implementation as FunctionNode;
    }
    return declaration;
  }

  private isOwnSource(file: ts.SourceFile): boolean {
    const path = relative(this.root, file.fileName).split(sep);
    return (
      !file.isDeclarationFile &&
      !path.includes('node_modules') &&
      (path[0] === 'services' || path[0] === 'libs') &&
      path[2] === 'src' &&
      !file.fileName.endsWith('.test.ts')
    );
  }

  private find(ref: Ref): FunctionNode {
    const node = this.findOptional(ref);
    if (!node) throw new Error(`${ref.file}: no ${'route' in ref ? `route ${ref.route}` : `function ${ref.name}`}`);
    return node;
  }

  private findOptional(ref: Ref): FunctionNode | undefined {
    const path = join(this.root, ref.file);
    const file = existsSync(path) ? this.program.getSourceFile(realpathSync(path)) : undefined;
    if (!file) return undefined;
    return 'route' in ref ? this.findRoute(file, ref.route) : this.findFunction(file, ref.name);
  }

  /** `name`, `Class.method`, `Interface.method`, or a path into a `const` object literal: `TABLE.card.simulate`. */
  private findFunction(file: ts.SourceFile, name: string): FunctionNode | undefined {
    const parts = name.split('.');
    if (parts.length > 2) return this.findInObject(file, parts);
    const [owner, member] = parts.length === 2 ? parts : [undefined, name];
    for (const statement of file.statements) {
      if (owner === undefined) {
        if (ts.isFunctionDeclaration(statement) && statement.name?.text === member) return this.functionOf(statement);
        if (ts.isVariableStatement(statement)) {
          const declaration = statement.declarationList.declarations.find(
            (d) => ts.isIdentifier(d.name) && d.name.text === member,
          );
          if (declaration) return this.functionOf(declaration);
        }
        continue;
      }
      if (
        (ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement)) &&
        statement.name?.text === owner
      ) {
        const memberNode = (statement.members as ts.NodeArray<ts.ClassElement | ts.TypeElement>).find((m) =>
          member === 'constructor'
            ? ts.isConstructorDeclaration(m)
            : m.name !== undefined && ts.isIdentifier(m.name) && m.name.text === member,
        );
        if (memberNode) return this.functionOf(memberNode);
      }
    }
    return undefined;
  }

  private findInObject(file: ts.SourceFile, [name, ...path]: string[]): FunctionNode | undefined {
    let node: ts.Node | undefined;
    for (const statement of file.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      const declaration = statement.declarationList.declarations.find(
        (d) => ts.isIdentifier(d.name) && d.name.text === name,
      );
      if (declaration) node = declaration.initializer;
    }
    for (const key of path) {
      while (node && (ts.isSatisfiesExpression(node) || ts.isAsExpression(node))) node = node.expression;
      if (!node || !ts.isObjectLiteralExpression(node)) return undefined;
      const property = node.properties.find(
        (p) => p.name !== undefined && ts.isIdentifier(p.name) && p.name.text === key,
      );
      node = property && (ts.isPropertyAssignment(property) ? property.initializer : property);
    }
    return node && this.functionOf(node);
  }

  /** `router.post('/:sessionId/pay', handler)`: the handler, or the factory that makes it (`pay(deps)`). */
  private findRoute(file: ts.SourceFile, route: string): FunctionNode | undefined {
    const [method, path] = route.split(' ');
    let found: FunctionNode | undefined;
    const visit = (node: ts.Node): void => {
      if (
        !found &&
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === method?.toLowerCase() &&
        node.arguments.length >= 2 &&
        ts.isStringLiteral(node.arguments[0]!) &&
        node.arguments[0].text === path
      ) {
        const handler = node.arguments[node.arguments.length - 1]!;
        if (ts.isArrowFunction(handler) || ts.isFunctionExpression(handler)) found = handler;
        else if (ts.isCallExpression(handler)) found = this.resolve(handler);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
    return found;
  }

  private hopOf(node: FunctionNode): Hop {
    const file = node.getSourceFile();
    return {
      file: relative(this.root, file.fileName).split(sep).join('/'),
      name: nameOf(node),
      line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1,
    };
  }
}

/** A declaration without code: an interface's method or function-valued property. */
function isSignature(node: FunctionNode): boolean {
  return ts.isMethodSignature(node) || ts.isPropertySignature(node);
}

function nameOf(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) && node.name)
    return node.name.text;
  if (ts.isConstructorDeclaration(node)) return `${nameOf(node.parent)}.constructor`;
  if ((ts.isMethodDeclaration(node) || ts.isMethodSignature(node)) && ts.isIdentifier(node.name))
    return `${nameOf(node.parent)}.${node.name.text}`;
  let parent = node.parent;
  while (ts.isSatisfiesExpression(parent) || ts.isAsExpression(parent) || ts.isParenthesizedExpression(parent))
    parent = parent.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if ((ts.isPropertyDeclaration(parent) || ts.isPropertyAssignment(parent)) && ts.isIdentifier(parent.name))
    return `${nameOf(parent.parent)}.${parent.name.text}`;
  if (ts.isCallExpression(parent) && ts.isPropertyAccessExpression(parent.expression)) {
    const path = parent.arguments[0];
    return `${parent.expression.name.text.toUpperCase()} ${path && ts.isStringLiteral(path) ? path.text : '?'}`;
  }
  return '(anonymous)';
}
