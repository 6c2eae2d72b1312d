// A function's own length: its lines, minus blank and comment-only lines, minus the lines of the functions
// nested in it. A factory that returns a dozen small methods is as easy to read as the methods are, so
// ESLint's max-lines-per-function (which counts nested functions too) would measure the wrong thing.
const FUNCTION_NODES = ['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression'];

export const maxOwnLines = {
  meta: {
    type: 'suggestion',
    schema: [{ type: 'object', properties: { max: { type: 'integer', minimum: 1 } }, additionalProperties: false }],
    messages: { tooLong: '{{name}} has {{lines}} lines of its own (at most {{max}}): split it into named steps.' },
  },
  create(context) {
    const max = context.options[0]?.max ?? 60;
    const source = context.sourceCode;
    const commentLines = new Set();
    for (const comment of source.getAllComments())
      for (let line = comment.loc.start.line; line <= comment.loc.end.line; line += 1) commentLines.add(line);
    const stack = [];
    const enter = () => stack.push(new Set());
    const exit = (node) => {
      const nested = stack.pop();
      const own = [];
      for (let line = node.loc.start.line; line <= node.loc.end.line; line += 1) {
        if (nested.has(line)) continue;
        const text = source.lines[line - 1].trim();
        if (text === '' || (commentLines.has(line) && !/[^\s/*]/.test(text.replace(/\/\/.*$|\/\*.*?\*\//g, '')))) continue;
        own.push(line);
      }
      const parent = stack.at(-1);
      // The nested function's body lines belong to it; its first and last lines stay with the parent.
      if (parent) for (let line = node.loc.start.line + 1; line < node.loc.end.line; line += 1) parent.add(line);
      if (own.length > max) {
        const name =
          node.id?.name ?? (node.parent?.type === 'VariableDeclarator' ? node.parent.id.name : node.parent?.key?.name) ?? 'A function';
        context.report({ node, messageId: 'tooLong', data: { name, lines: String(own.length), max: String(max) } });
      }
    };
    const handlers = {};
    for (const type of FUNCTION_NODES) {
      handlers[type] = enter;
      handlers[`${type}:exit`] = exit;
    }
    return handlers;
  },
};

export default { rules: { 'max-own-lines': maxOwnLines } };
