// The page's tabs (Diagnose, Rules, and whatever is added later: one `add` call each), and the
// URL fragment they share with other page state. The fragment is `key=value` pairs joined by
// `&` (`#tab=rules&lang=ko`): each owner reads and writes its own key and keeps every other
// one, so a link opens the same tab in the same language.

/** The fragment's pairs, in order. A part without `=` (a skip link's `#result`) is dropped. */
export function readFragment(hash = location.hash) {
  const pairs = new Map();
  for (const part of hash.replace(/^#/, '').split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    try {
      pairs.set(decodeURIComponent(part.slice(0, eq)), decodeURIComponent(part.slice(eq + 1)));
    } catch {
      // A malformed escape is no one's state: leave it out.
    }
  }
  return pairs;
}

/** The fragment with `key` set to `value` (or removed when `value` is null), others kept. */
export function withFragmentKey(hash, key, value) {
  const pairs = readFragment(hash);
  if (value === null || value === undefined) pairs.delete(key);
  else pairs.set(key, value);
  return [...pairs].map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}

/** Write one key of the fragment without adding a history entry or scrolling. */
export function setFragmentKey(key, value) {
  const hash = withFragmentKey(location.hash, key, value);
  history.replaceState(history.state, '', `${location.pathname}${location.search}${hash ? `#${hash}` : ''}`);
}

const KEY = 'tab';

/**
 * Tabs in `bar` (an element with role="tablist"). `add({id, label, panel})` makes a tab of
 * `panel` (an element, hidden unless its tab is selected); the first tab added is the one a
 * fragment without `tab=` opens. `onSelect(id)` is told each time a tab opens.
 */
export function createTabs(bar, { onSelect = () => {} } = {}) {
  const tabs = [];
  let current = null;

  function select(id, { focus = false, write = true } = {}) {
    const tab = tabs.find((t) => t.id === id) ?? tabs[0];
    if (!tab) return;
    for (const t of tabs) {
      const on = t === tab;
      t.button.setAttribute('aria-selected', on ? 'true' : 'false');
      t.button.tabIndex = on ? 0 : -1;
      t.panel.hidden = !on;
    }
    if (focus) tab.button.focus();
    // The first tab is the page as it opens: a link to it needs no key.
    if (write) setFragmentKey(KEY, tab === tabs[0] ? null : tab.id);
    document.body.dataset.tab = tab.id;
    if (current !== tab.id) {
      current = tab.id;
      onSelect(tab.id);
    }
  }

  bar.addEventListener('keydown', (e) => {
    const at = tabs.findIndex((t) => t.button === document.activeElement);
    if (at < 0) return;
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    select(tabs[(to + tabs.length) % tabs.length].id, { focus: true });
  });

  function add({ id, label, panel }) {
    const button = document.createElement('button');
    button.type = 'button';
    button.id = `tab-${id}`;
    button.className = 'tab';
    button.setAttribute('role', 'tab');
    button.setAttribute('aria-controls', panel.id);
    button.dataset.tab = id;
    button.textContent = label;
    button.addEventListener('click', () => select(id));
    panel.setAttribute('role', 'tabpanel');
    panel.setAttribute('aria-labelledby', button.id);
    bar.append(button);
    tabs.push({ id, button, panel });
    select(readFragment().get(KEY) ?? tabs[0].id, { write: false });
    return button;
  }

  // A link or the back button changed the fragment: open the tab it names.
  window.addEventListener('hashchange', () => select(readFragment().get(KEY) ?? tabs[0]?.id, { write: false }));

  return { add, select, get current() { return current; } };
}
