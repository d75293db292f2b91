// @ts-check
/**
 * parley/no-plain-object-dictionary — a dictionary keyed by outside text must be
 * a `Map` or a null-prototype object, never a plain object.
 *
 * Why: `dict[word]` on a plain object reads `Object.prototype` when the word is
 * "constructor", "toString", "__proto__", "hasOwnProperty" or "valueOf", and
 * `dict[word] = x` with "__proto__" replaces the object's prototype. Words,
 * tokens, names and keys from payloads, `other` fragments and tool texts are
 * outside text (draft-zhou §7 treats `other` as untrusted), so one such word
 * could halt a pipeline.
 *
 * What it flags (syntax only, no type checker, so it stays fast): a computed
 * member access `obj[key]`, read or write, whose key is not a literal, where
 * `obj` is declared in the same file (a variable, a parameter, a class field,
 * a constructor parameter property) either
 *   - initialised with an object literal (`{}` or `{ a: 1 }`, also through `as`), or
 *   - typed as a string-keyed dictionary: `Record<string, T>`, `{ [k: string]: T }`,
 *     also inside `Readonly<…>` / `Partial<…>`.
 * `Record<'a' | 'b', T>` and other closed key types are not flagged (the type
 * checker holds the key to those names). Objects made with `Object.create(null)`
 * are not flagged (no prototype to reach).
 *
 * Fix: use a `Map` (or `Object.create(null)`), or read own members only and say so:
 * `Object.hasOwn(obj, key) ? obj[key] : undefined` is accepted when written in
 * exactly that guarded form (a conditional whose test is `Object.hasOwn(obj, key)`
 * with the same object and key).
 */

/** @param {any} t a TS type node */
function isStringDictionaryType(t) {
  if (!t) return false;
  if (t.type === 'TSTypeAnnotation') return isStringDictionaryType(t.typeAnnotation);
  if (t.type === 'TSTypeReference' && t.typeName?.type === 'Identifier') {
    const name = t.typeName.name;
    const args = (t.typeArguments ?? t.typeParameters)?.params ?? [];
    if (name === 'Record') return args[0]?.type === 'TSStringKeyword';
    if (name === 'Readonly' || name === 'Partial' || name === 'Required') return isStringDictionaryType(args[0]);
    return false;
  }
  if (t.type === 'TSTypeLiteral') {
    return t.members.some((/** @type {any} */ m) => m.type === 'TSIndexSignature' && m.parameters?.[0]?.typeAnnotation?.typeAnnotation?.type === 'TSStringKeyword');
  }
  if (t.type === 'TSUnionType' || t.type === 'TSIntersectionType') return t.types.some(isStringDictionaryType);
  return false;
}

/** @param {any} init an initialiser expression */
function isObjectLiteral(init) {
  if (!init) return false;
  if (init.type === 'ObjectExpression') return true;
  if (init.type === 'TSAsExpression' || init.type === 'TSSatisfiesExpression' || init.type === 'TSNonNullExpression') {
    return isObjectLiteral(init.expression) || (init.type === 'TSAsExpression' && init.expression.type === 'ObjectExpression');
  }
  return false;
}

/** @param {any} init */
function castToDictionary(init) {
  return init && init.type === 'TSAsExpression' && isStringDictionaryType(init.typeAnnotation) && !isNullPrototype(init);
}

/**
 * Whether a declaration (variable declarator, parameter identifier, class property) makes a plain-object dictionary.
 * @param {any} typeAnnotation
 * @param {any} init
 */
function declaresDictionary(typeAnnotation, init) {
  if (isNullPrototype(init)) return false;
  // A declared type decides: a string-keyed dictionary type is flagged whatever makes the object
  // (a literal, Object.fromEntries, JSON.parse); a closed key type (Record<'n' | 'v', T>) is not.
  if (typeAnnotation) return isStringDictionaryType(typeAnnotation);
  // `{} as T`: the cast's type decides, as a declared type would (`as const` keeps the literal's).
  if (init?.type === 'TSAsExpression') {
    const t = init.typeAnnotation;
    if (t.type === 'TSTypeReference' && t.typeName?.type === 'Identifier' && t.typeName.name === 'const') return isObjectLiteral(init.expression);
    return isStringDictionaryType(t);
  }
  // An untyped literal with members is indexed through keyof its own type (TypeScript refuses a string
  // key there), so only the empty `{}` filled later is a dictionary in disguise.
  const lit = stripCasts(init);
  return lit?.type === 'ObjectExpression' && lit.properties.length === 0;
}

/** `Object.create(null)`, possibly cast: a null-prototype object. @param {any} init */
function isNullPrototype(init) {
  let e = init;
  while (e && (e.type === 'TSAsExpression' || e.type === 'TSSatisfiesExpression' || e.type === 'TSNonNullExpression')) e = e.expression;
  return (
    e?.type === 'CallExpression' &&
    e.callee.type === 'MemberExpression' &&
    e.callee.object.type === 'Identifier' &&
    e.callee.object.name === 'Object' &&
    e.callee.property.type === 'Identifier' &&
    e.callee.property.name === 'create' &&
    e.arguments[0]?.type === 'Literal' &&
    e.arguments[0].value === null
  );
}

/** @param {any} e */
function stripCasts(e) {
  while (e && (e.type === 'TSAsExpression' || e.type === 'TSSatisfiesExpression' || e.type === 'TSNonNullExpression')) e = e.expression;
  return e;
}

/** @param {any} node */
function isLiteral(node) {
  const e = stripCasts(node);
  if (!e) return false;
  if (e.type === 'Literal') return true;
  if (e.type === 'TemplateLiteral' && e.expressions.length === 0) return true;
  if (e.type === 'UnaryExpression' && e.argument.type === 'Literal') return true;
  return false;
}

const SCREAMING = /^[A-Z][A-Z0-9_]*$/;

/** `Object.keys(X)` / `Object.entries(X)` (also `.sort()`ed or `.filter(…)`ed): returns X, else undefined. @param {any} e */
function ownKeysOf(e) {
  e = stripCasts(e);
  while (e?.type === 'CallExpression' && e.callee.type === 'MemberExpression' && e.callee.property.type === 'Identifier' && ['sort', 'filter', 'slice'].includes(e.callee.property.name)) {
    e = stripCasts(e.callee.object);
  }
  if (e?.type !== 'CallExpression' || e.callee.type !== 'MemberExpression') return undefined;
  const { object, property } = e.callee;
  if (object.type !== 'Identifier' || object.name !== 'Object' || property.type !== 'Identifier') return undefined;
  return property.name === 'keys' || property.name === 'entries' ? e.arguments[0] : undefined;
}

/**
 * Whether the key cannot be outside text, or is an own key of the very object indexed:
 * a literal; a `const` bound to a literal; a `for…of` variable over an array of literals;
 * a key from `Object.keys(obj)` / `Object.entries(obj)` of the same object (for…of or an
 * array-method callback).
 * @param {any} node the MemberExpression @param {any} source
 */
function safeKey(node, source) {
  const key = node.property;
  if (isLiteral(key)) return true;
  if (key.type !== 'Identifier') return false;
  const v = findVariable(source.getScope(node), key.name);
  if (!v) return false;
  for (const def of v.defs) {
    // An imported SCREAMING_CASE name is a constant of the code, not outside text.
    if (def.type === 'ImportBinding' && SCREAMING.test(key.name)) return true;
    if (def.type === 'Variable') {
      const decl = def.node; // VariableDeclarator
      if (def.parent?.kind === 'const' && decl.init && isLiteral(decl.init)) return true;
      const loop = def.parent?.parent;
      if (loop?.type === 'ForOfStatement' && loop.left === def.parent) {
        const it = stripCasts(loop.right);
        if (it?.type === 'ArrayExpression' && it.elements.every((/** @type {any} */ el) => isLiteral(el) || (el?.type === 'ArrayExpression' && el.elements.every(isLiteral)))) return true;
        // A list or table of the code's own (a SCREAMING_CASE constant): its members are not outside text.
        if (it?.type === 'Identifier' && SCREAMING.test(it.name)) return true;
        const of = ownKeysOf(it);
        if (of && (source.getText(of) === source.getText(node.object) || (of.type === 'Identifier' && SCREAMING.test(of.name)))) return true;
      }
    } else if (def.type === 'Parameter') {
      const fn = def.node;
      const call = fn.parent;
      if (call?.type === 'CallExpression' && call.arguments[0] === fn && call.callee.type === 'MemberExpression') {
        const of = ownKeysOf(call.callee.object);
        if (of && source.getText(of) === source.getText(node.object)) return true;
      }
    }
  }
  return false;
}

/** @param {any} a @param {any} b */
function sameExpr(a, b, /** @type {any} */ source) {
  return source.getText(a) === source.getText(b);
}

/**
 * `Object.hasOwn(obj, key) ? obj[key] : …` (or `&&`): the read is of own members only.
 * @param {any} node the MemberExpression
 * @param {any} source
 */
function guardedByHasOwn(node, source) {
  /** @param {any} test */
  const isGuard = (test) =>
    test?.type === 'CallExpression' &&
    test.callee.type === 'MemberExpression' &&
    test.callee.object.type === 'Identifier' &&
    test.callee.object.name === 'Object' &&
    test.callee.property.type === 'Identifier' &&
    test.callee.property.name === 'hasOwn' &&
    test.arguments.length === 2 &&
    sameExpr(test.arguments[0], node.object, source) &&
    sameExpr(test.arguments[1], node.property, source);
  for (let p = node.parent, child = node; p; child = p, p = p.parent) {
    if (p.type === 'ConditionalExpression' && p.consequent === child && isGuard(p.test)) return true;
    if (p.type === 'LogicalExpression' && p.operator === '&&' && p.right === child && isGuard(p.left)) return true;
    if (p.type === 'IfStatement' && p.consequent === child && isGuard(p.test)) return true;
    if (p.type.endsWith('Statement') || p.type.startsWith('Function') || p.type === 'ArrowFunctionExpression') {
      if (p.type !== 'IfStatement') break;
    }
  }
  return false;
}

/** @param {any} scope @param {string} name */
function findVariable(scope, name) {
  for (let s = scope; s; s = s.upper) {
    const v = s.set.get(name);
    if (v) return v;
  }
  return undefined;
}

/** @param {any} variable */
function variableIsDictionary(variable) {
  for (const def of variable.defs) {
    if (def.type === 'Variable' && def.node.type === 'VariableDeclarator' && def.node.id.type === 'Identifier') {
      if (declaresDictionary(def.node.id.typeAnnotation, def.node.init)) return true;
    } else if (def.type === 'Parameter' && def.name) {
      const id = def.name;
      const param = id.parent?.type === 'AssignmentPattern' ? id.parent : id;
      if (param.type === 'AssignmentPattern' && isNullPrototype(param.right)) continue;
      if (isStringDictionaryType(id.typeAnnotation)) return true;
    }
  }
  return false;
}

/** `this.name` inside a class: its field declaration or constructor parameter property. @param {any} node @param {string} name */
function classMemberIsDictionary(node, name) {
  let cls = node.parent;
  while (cls && cls.type !== 'ClassBody') cls = cls.parent;
  if (!cls) return false;
  for (const m of cls.body) {
    if (m.type === 'PropertyDefinition' && !m.computed && m.key.type === 'Identifier' && m.key.name === name) {
      return declaresDictionary(m.typeAnnotation, m.value);
    }
    if (m.type === 'MethodDefinition' && m.kind === 'constructor') {
      for (const p of m.value.params) {
        if (p.type === 'TSParameterProperty') {
          const id = p.parameter.type === 'AssignmentPattern' ? p.parameter.left : p.parameter;
          if (id.type === 'Identifier' && id.name === name) return isStringDictionaryType(id.typeAnnotation);
        }
      }
    }
  }
  return false;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noPlainObjectDictionary = {
  meta: {
    type: 'problem',
    docs: { description: 'Dictionaries keyed by outside text must be Maps or null-prototype objects, not plain objects' },
    schema: [],
    messages: {
      dictionary:
        '`{{object}}[{{key}}]` indexes a plain-object dictionary with a computed key: a key such as "constructor" or "__proto__" reaches Object.prototype. ' +
        'Use a Map (or Object.create(null)), or guard the read with `Object.hasOwn({{object}}, {{key}}) ? {{object}}[{{key}}] : …`.',
    },
  },
  create(context) {
    const source = context.sourceCode;
    return {
      MemberExpression(/** @type {any} */ node) {
        if (!node.computed || safeKey(node, source)) return;
        const obj = stripCasts(node.object);
        let dict = false;
        if (obj.type === 'Identifier') {
          const v = findVariable(source.getScope(node), obj.name);
          dict = v !== undefined && variableIsDictionary(v);
        } else if (obj.type === 'MemberExpression' && obj.object.type === 'ThisExpression' && !obj.computed && obj.property.type === 'Identifier') {
          dict = classMemberIsDictionary(node, obj.property.name);
        }
        if (!dict || guardedByHasOwn(node, source)) return;
        context.report({ node, messageId: 'dictionary', data: { object: source.getText(obj), key: source.getText(node.property) } });
      },
    };
  },
};

export default { rules: { 'no-plain-object-dictionary': noPlainObjectDictionary } };
