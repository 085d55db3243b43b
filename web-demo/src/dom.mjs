// The page's two ways of making elements, shared by every script: `el` builds an element from
// its attributes, handlers and children, and `withCode` turns `backtick spans` into <code>.
// Both only create nodes and set text: nothing from a bundle is ever parsed as HTML.

/** An element `tag` with `attrs` (`class`, `on<event>` handlers, other attributes; null,
 * undefined and false left out) and `children` (nodes, or values shown as text). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** `text` as nodes: each `backtick span` a <code> element, the rest text. */
export function withCode(text) {
  return text.split(/(`[^`]+`)/).filter(Boolean).map((part) => {
    if (part.length > 2 && part.startsWith('`') && part.endsWith('`')) {
      const code = document.createElement('code');
      code.textContent = part.slice(1, -1);
      return code;
    }
    return document.createTextNode(part);
  });
}
