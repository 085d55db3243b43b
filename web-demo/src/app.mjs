// The paste-in triage page: every judgement comes from the kubectl-layer npm package (the same
// core as the CLI), loaded from this origin. Nothing is stored or sent: inputs live in memory
// only, and the Content-Security-Policy forbids talking to any other host. Every value from the
// bundle is shown with textContent, never parsed as HTML. Each change of the input is read
// once (`Bundle.parse`); the target list, every diagnosis, the evidence sources and the
// Markdown all come from that one parsed bundle. The diagnosis is drawn as the layer stack
// (picture.mjs) above its table; the rule browser is a tab of its own (tabs.mjs). "Would it fit?" reads the bundle and the
// manifest together when asked (`fit`), since fitting adds the manifest's work to the bundle.
// The page speaks English or Korean (a switch in the header, kept as `lang=ko` in the URL
// fragment): the diagnosis comes from the core in that language, the page's own words from
// i18n.mjs.
import { init, loadLanguage, words as coreWords, Bundle, fit, rules, markdown, version } from './pkg/index.web.mjs';
import { picture, legend } from './picture.mjs';
import { createTabs, readFragment, setFragmentKey } from './tabs.mjs';
import { LANGS, say, applyPageWords } from './i18n.mjs';
import { el, withCode } from './dom.mjs';
import { createPractice } from './practice.mjs';

const $ = (id) => document.getElementById(id);
const LAYERS = ['device', 'admission', 'grouping', 'placement', 'runtime', 'serving'];
const STATE_LABEL = { ok: 'ok', blocked: 'BLOCKED', warn: 'WARN', unknown: 'unknown', notInvolved: 'not involved' };

/** The page's language, and the core's words in it (layer and state names, outlook words). */
let lang = 'en';
let uiWords = null;
const t = (key, vars) => say(lang, key, vars);
/** A layer's name as the page's language says it (the contract's name in English). */
const layerName = (layer) => (lang === 'en' || !uiWords ? layer : uiWords[`layer.${layer}`] ?? layer);
const stateLabel = (state) => (lang === 'en' || !uiWords ? STATE_LABEL[state] : uiWords[`state.${state}`]) ?? state;
/** The options every call of the package gets: the page's language. */
const langOptions = () => ({ lang });

/** Dropped or opened files: {name, text}. */
let files = [];
/** The diagnosis on screen, and the input and target it belongs to. */
let shown = null;
/** The manifest's work as fitted into the bundle ("Would it fit?"), while the target list shows it. */
let fitted = null;
/** What a blocked verdict's outlook means, as the CLI says it after the headline. */
const OUTLOOK = {
  never: { now: 'waiting will not change this', fit: 'waiting would not change this' },
  waiting: { now: 'it runs once what it waits for frees up or arrives', fit: 'it would run once what it waits for frees up or arrives' },
};
let generation = 0;
/** The input as last read, and what it read to (a Bundle, or the error). */
let parsed = { inputs: [], bundle: null, error: null };
/** How many times the page has read an input: tests check one read per change. */
let reads = 0;

const setReady = (ready) => { document.body.dataset.ready = ready ? 'true' : 'false'; };

function bundleInputs() {
  const pasted = $('bundle').value;
  return [pasted, ...files.map((f) => f.text)].filter((t) => t.trim() !== '');
}

function showError(message) {
  const box = $('error');
  box.hidden = !message;
  box.textContent = message ? t('readError', { message }) : '';
}

function clearResult(message) {
  $('groups').hidden = true;
  const v = $('verdict');
  v.dataset.layer = '';
  v.dataset.state = '';
  v.dataset.outlook = '';
  v.dataset.target = '';
  v.textContent = message;
  $('headline').textContent = '';
  $('headline-ko').hidden = true;
  for (const id of ['outlook', 'misalignment', 'picture', 'layers', 'timeline-section', 'findings-section', 'next-section', 'pods-section', 'missing-section', 'notes-section']) $(id).hidden = true;
  $('picture-frame').replaceChildren();
  shown = null;
  reportReady(false);
}

const sameInputs = (a, b) => a.length === b.length && a.every((t, i) => t === b[i]);

/** The current input, read once per change: the Bundle, or throws what reading it said. */
function currentBundle(inputs) {
  if (!sameInputs(inputs, parsed.inputs)) {
    parsed.bundle?.free();
    parsed = { inputs, bundle: null, error: null };
    reads += 1;
    document.body.dataset.reads = String(reads);
    try {
      parsed.bundle = Bundle.parse(inputs, langOptions());
    } catch (e) {
      parsed.error = e;
    }
  }
  if (parsed.error) throw parsed.error;
  return parsed.bundle;
}

function showFitError(message) {
  const box = $('fit-error');
  box.hidden = !message;
  box.textContent = message ? t('fitError', { message }) : '';
}

const FIT_PREFIX = 'fit:';

/** "Would it fit?": the manifest's work judged against the bundle as if submitted now. */
function runFit() {
  setReady(false);
  const inputs = bundleInputs();
  const manifest = $('manifest').value;
  if (manifest.trim() === '') {
    showFitError(t('fitNoManifest'));
    setReady(true);
    return;
  }
  if (inputs.length === 0) {
    showFitError(t('fitNoBundle'));
    setReady(true);
    return;
  }
  let result;
  try {
    result = fit(inputs, manifest, langOptions());
  } catch (e) {
    showFitError(e.message);
    setReady(true);
    return;
  }
  showFitError('');
  fitted = result;
  const select = $('target');
  select.replaceChildren(
    ...fitted.map((d, i) => el('option', { value: `${FIT_PREFIX}${i}` }, `fit: ${d.target.kind} ${d.target.namespace ? `${d.target.namespace}/` : ''}${d.target.name} — ${verdictText(d)}`)),
  );
  select.disabled = false;
  select.value = `${FIT_PREFIX}0`;
  render(fitted[0], `${FIT_PREFIX}0`);
  setReady(true);
}

/** Recompute everything for the current input, keeping the chosen target when it still exists. */
function recompute() {
  const gen = ++generation;
  setReady(false);
  // Let the browser paint "computing" before a large bundle blocks the thread.
  setTimeout(() => {
    if (gen !== generation) return;
    const inputs = bundleInputs();
    const select = $('target');
    if (inputs.length === 0) {
      parsed.bundle?.free();
      parsed = { inputs, bundle: null, error: null };
      showError('');
      select.replaceChildren();
      select.disabled = true;
      clearResult(t('pasteFirst'));
      setReady(true);
      return;
    }
    fitted = null;
    let bundle;
    try {
      bundle = currentBundle(inputs);
    } catch (e) {
      showError(e.message);
      select.replaceChildren();
      select.disabled = true;
      clearResult(t('unreadable'));
      setReady(true);
      return;
    }
    showError('');
    // The verdict first: the target chosen before while it is still there, else the most likely
    // one, found without judging every candidate. The list (thousands of targets on a large
    // cluster, which take longer to judge and to show than the verdict) is built after it.
    let first;
    try {
      first = firstDiagnosis(bundle, select.value);
    } catch (e) {
      select.replaceChildren();
      select.disabled = true;
      if (e.code === 'target-not-found') {
        clearResult(t('noWork'));
      } else {
        showError(e.message);
        clearResult(t('noDiagnosis'));
      }
      setReady(true);
      return;
    }
    const { d, target } = first;
    select.replaceChildren(el('option', { value: target }, `${d.target.kind} ${d.target.namespace ? `${d.target.namespace}/` : ''}${d.target.name} — ${d.target.status}`));
    select.disabled = false;
    render(d, target);
    requestAnimationFrame(() => setTimeout(() => {
      if (gen !== generation) return;
      try {
        select.replaceChildren(...bundle.targets().map(targetOption));
        select.value = target;
        showGroups(bundle.scan().groups ?? []);
      } catch (e) {
        showError(e.message);
      }
      setReady(true);
    }, 0));
  }, 0);
}

const targetValue = (t) => `${t.kind}/${t.namespace ?? ''}/${t.name}`;

/** The scan's groups by cause, each a <details> a person opens to see its work (the first
 * examples, each a button that diagnoses it). Built with `el`: bundle text stays text. */
function showGroups(groups) {
  const section = $('groups');
  section.hidden = groups.length === 0;
  $('group-list').replaceChildren(...groups.map((g) => {
    const cause = g.cause ? `${g.cause.kind} ${g.cause.namespace ? `${g.cause.namespace}/` : ''}${g.cause.name}${g.cause.flavor ? `, flavor ${g.cause.flavor}` : ''}` : null;
    const q = g.queue;
    const queue = q?.positions && [
      t('groupQueue', { first: q.positions[0], last: q.positions[1], of: q.of ?? '?', queue: q.queue, source: q.source }),
      q.wait,
    ].filter(Boolean).join('; ');
    const head = [
      t('groupWork', { count: g.count, rule: g.rule ?? '-' }),
      cause && t('groupOn', { cause }),
      g.outlook && `(${g.outlook})`,
    ].filter(Boolean).join(' ');
    const items = g.examples.map((e) => {
      const value = `${e.kind}/${e.namespace ?? ''}/${e.name}`;
      const pick = () => { $('target').value = value; runDiagnosis(); };
      return el('li', {},
        el('button', { type: 'button', class: 'link', 'data-testid': 'group-item', onclick: pick },
          `${e.kind} ${e.namespace ? `${e.namespace}/` : ''}${e.name}`),
        ` — ${e.headline}`);
    });
    return el('details', { class: 'group', 'data-testid': 'group', 'data-layer': g.layer ?? '', 'data-count': g.count },
      el('summary', {}, el('span', { class: `state ${g.state}` }, g.layer ?? g.state), ' ', head),
      g.namespaces.length ? el('p', { class: 'hint' }, t('groupNamespaces', { names: g.namespaces.join(', ') })) : null,
      queue ? el('p', { class: 'hint', 'data-testid': 'group-queue' }, queue) : null,
      el('ul', {}, items));
  }));
}

/** The diagnosis of `previous` while the bundle still has it, else of the first candidate. */
function firstDiagnosis(bundle, previous) {
  if (previous) {
    try {
      return { d: bundle.diagnose(previous), target: previous };
    } catch (e) {
      if (e.code !== 'target-not-found' && e.code !== 'target-ambiguous') throw e;
    }
  }
  const d = bundle.diagnose();
  return { d, target: targetValue(d.target) };
}

function targetOption(t) {
  return el('option', { value: t.value }, `${t.needsAttention ? '⚠ ' : ''}${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name} — ${t.status}`);
}

function runDiagnosis(gen = ++generation) {
  setReady(false);
  const target = $('target').value;
  if (fitted && target.startsWith(FIT_PREFIX)) {
    render(fitted[Number(target.slice(FIT_PREFIX.length))], target);
    setReady(true);
    return;
  }
  try {
    const d = currentBundle(bundleInputs()).diagnose(target);
    if (gen !== generation) return;
    render(d, target);
  } catch (e) {
    showError(e.message);
    clearResult(t('noDiagnosis'));
  }
  if (gen === generation) setReady(true);
}

function verdictText(d) {
  const v = d.verdict;
  const layer = v.layer && layerName(v.layer);
  if (d.target.status === 'NotSubmitted') {
    if (v.state === 'blocked') return t('wouldBlockAt', { layer });
    if (v.state === 'warn') return t('warnAt', { layer });
    if (v.state === 'ok') return t('wouldRun');
    return t('wouldUnknown');
  }
  if (v.state === 'blocked') return t('blockedAt', { layer });
  if (v.state === 'warn') return t('warnAt', { layer });
  if (v.state === 'ok') return t('ok');
  return t('unknown');
}

/** What a blocked verdict's outlook means: the page's English, else the core's words. */
function outlookWords(d) {
  const fitting = d.target.status === 'NotSubmitted';
  if (lang === 'en' || !uiWords) return OUTLOOK[d.verdict.outlook]?.[fitting ? 'fit' : 'now'];
  const key = { never: fitting ? 'outlook.wouldNever' : 'outlook.never', waiting: fitting ? 'outlook.wouldWait' : 'outlook.waiting' }[d.verdict.outlook];
  return key && uiWords[key];
}

function render(d, target) {
  shown = { d, target };
  const v = $('verdict');
  v.dataset.layer = d.verdict.layer ?? '';
  v.dataset.state = d.verdict.state;
  v.dataset.outlook = d.verdict.outlook ?? '';
  v.dataset.target = target;
  const what = `${d.target.kind} ${d.target.namespace ? `${d.target.namespace}/` : ''}${d.target.name}`;
  v.textContent = d.target.status === 'NotSubmitted'
    ? t('notSubmitted', { what, verdict: verdictText(d) })
    : t('isStatus', { what, status: d.target.status, verdict: verdictText(d) });
  // The headline stays English (it is meant for an upstream issue's title); in Korean its
  // explanation follows it.
  $('headline').textContent = d.verdict.headline;
  $('headline-ko').hidden = !d.verdict.headlineKo;
  $('headline-ko').textContent = d.verdict.headlineKo ?? '';
  const words = outlookWords(d);
  $('outlook').hidden = !words;
  $('outlook').textContent = words ? t('outlook', { outlook: d.verdict.outlook, words }) : '';

  const m = d.verdict.misalignment;
  $('misalignment').hidden = !m;
  const saidYes = m && m.saidYesByConfiguration ? t('saidYesConfig', { layer: layerName(m.saidYes) }) : m && layerName(m.saidYes);
  $('misalignment').textContent = m ? t('misalignment', { saidYes, saidNo: layerName(m.saidNo), why: m.why }) : '';

  drawPicture(d);
  $('layer-rows').replaceChildren(
    ...d.layers.map((l) =>
      el('tr', { 'data-layer': l.layer, 'data-state': l.state },
        el('th', { scope: 'row' }, layerName(l.layer)),
        el('td', { class: `state state-${l.state}` }, stateLabel(l.state)),
        el('td', { class: 'decided' }, l.decidedBy.join(', ')),
        el('td', { class: 'summary' }, l.summary))),
  );
  $('layers').hidden = false;

  // The moments the bundle proves, oldest first, under the layers they belong to.
  const moments = d.timeline ?? { moments: [], earlier: 0 };
  $('timeline-rows').replaceChildren(
    ...moments.moments.map((m) =>
      el('tr', { 'data-layer': m.layer },
        el('td', {}, el('code', {}, m.time)),
        el('td', {}, layerName(m.layer)),
        el('td', {}, `${m.object.kind} ${m.object.namespace ? `${m.object.namespace}/` : ''}${m.object.name}`),
        el('td', {}, m.text))),
  );
  $('timeline-earlier').hidden = moments.earlier === 0;
  $('timeline-earlier').textContent = t('earlier', { count: moments.earlier });
  $('timeline-section').hidden = moments.moments.length === 0;

  $('findings').replaceChildren(...d.findings.map(findingItem));
  $('findings-section').hidden = d.findings.length === 0;

  $('next').replaceChildren(...d.next.map((cmd) => el('li', {}, el('code', {}, cmd), copyButton(cmd, say(lang, 'copyCommand', { cmd })))));
  $('next-section').hidden = d.next.length === 0;

  $('pods').replaceChildren(...(d.pods ?? []).map((p) => el('li', {}, `${p.name} — ${p.status}${p.node ? say(lang, 'onNode', { node: p.node }) : ''}`)));
  $('pods-section').hidden = !(d.pods ?? []).length;

  // A note about no object in particular (what fit does not model) is its words alone.
  $('missing').replaceChildren(...d.missing.map((x) => {
    const what = [x.namespace, x.name].filter(Boolean).join('/');
    return el('li', {}, x.kind || what ? `${x.kind} ${what}: ${x.why}` : x.why);
  }));
  $('missing-section').hidden = d.missing.length === 0;

  // What the input could not show (a `kubectl describe` paste): text, never markup.
  const notes = d.inputNotes ?? [];
  $('notes').replaceChildren(...notes.map((n) => el('li', {}, n)));
  $('notes-section').hidden = notes.length === 0;

  const repos = [...new Set(d.findings.filter((f) => f.severity !== 'info').map((f) => f.upstream).filter(Boolean))];
  reportReady(true, repos.length ? say(lang, 'reportTo', { repos: repos.join(', ') }) : '');
}

/** "Copy as Markdown" works only with a diagnosis on screen: before one it is disabled. */
function reportReady(ready, hint = '') {
  $('copy-markdown').disabled = !ready;
  $('report-hint').textContent = ready ? hint : say(lang, 'reportWaiting');
}

/** The layer stack of the diagnosis on screen, sized to the panel it is drawn in. */
function drawPicture(d) {
  const frame = $('picture-frame');
  $('picture').hidden = false;
  const words = lang === 'en' ? null : uiWords;
  frame.replaceChildren(picture(d, { width: frame.clientWidth || $('result').clientWidth, name: layerName, words }));
}

function findingItem(f) {
  return el('li', { 'data-rule': f.rule },
    el('span', { class: `sev sev-${f.severity}` }, f.severity),
    el('span', { class: 'rule-id' }, f.rule),
    el('p', {}, f.message),
    el('ul', { class: 'evidence' }, ...f.evidence.map(evidenceItem)));
}

function evidenceItem(e) {
  const where = e.path ?? (e.fact ? `fact ${e.fact}` : '');
  const value = typeof e.value === 'string' ? e.value : JSON.stringify(e.value);
  const o = e.object;
  const label = `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name} ${where}: ${value}`;
  const pre = el('pre', {});
  const details = el('details', {}, el('summary', {}, label), pre);
  details.addEventListener('toggle', () => {
    if (!details.open || pre.textContent) return;
    try {
      pre.textContent = JSON.stringify(currentBundle(bundleInputs()).object(o), null, 2);
    } catch (err) {
      pre.textContent = err.message;
    }
  });
  return el('li', {}, details);
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Clipboard API refused (no permission, insecure context): select-and-copy instead.
    const t = el('textarea', { class: 'sr-only', readonly: true });
    t.value = text;
    document.body.append(t);
    t.select();
    const ok = document.execCommand('copy');
    t.remove();
    return ok;
  }
}

function copyButton(text, label) {
  const b = el('button', { type: 'button', 'aria-label': label }, t('copy'));
  b.addEventListener('click', async () => {
    const ok = await copyText(text);
    b.textContent = ok ? t('copied') : t('copyFailed');
    setTimeout(() => { b.textContent = t('copy'); }, 1500);
  });
  return b;
}

async function readFiles(list) {
  const added = await Promise.all([...list].map(async (f) => ({ name: f.name, text: await f.text() })));
  files = files.concat(added);
  renderFiles();
  recompute();
}

function renderFiles() {
  $('file-list').replaceChildren(
    ...files.map((f, i) =>
      el('li', {}, `${f.name} (${Math.ceil(f.text.length / 1024)} KB)`,
        el('button', { type: 'button', 'aria-label': `${t('remove')} ${f.name}`, onclick: () => { files.splice(i, 1); renderFiles(); recompute(); } }, t('remove')))),
  );
}

function renderRules(all) {
  const filter = $('rule-filter').value.trim().toLowerCase();
  const groups = LAYERS.map((layer) => {
    const items = all.filter((r) => r.layer === layer && (!filter || `${r.id} ${r.summary} ${r.kind}`.toLowerCase().includes(filter)));
    if (items.length === 0) return null;
    return el('section', { 'data-layer': layer },
      el('h3', {}, layerName(layer)),
      ...items.map((r) => el('details', { 'data-rule': r.id },
        el('summary', {}, `${r.id} — `, ...withCode(r.summary)),
        el('pre', {}, r.documentation))));
  });
  $('rules').replaceChildren(...groups.filter(Boolean));
}

async function loadExamples() {
  try {
    const res = await fetch('examples/index.json');
    const list = await res.json();
    $('example').append(...list.map((x) => el('option', { value: x.file, 'data-target': x.target }, x.title)));
  } catch {
    $('example').disabled = true;
  }
}

async function loadExample() {
  const opt = $('example').selectedOptions[0];
  if (!opt || !opt.value) return;
  setReady(false);
  const text = await (await fetch(`examples/${opt.value}`)).text();
  files = [];
  renderFiles();
  $('bundle').value = text;
  recompute();
}

/** `fn` after `ms` of quiet; `.now()` runs it at once, dropping a wait in progress. */
function debounce(fn, ms) {
  let t;
  const later = () => { setReady(false); clearTimeout(t); t = setTimeout(fn, ms); };
  later.now = () => { clearTimeout(t); fn(); };
  return later;
}

// A paste or a drop is the whole input arriving at once: read it now. Typing waits for a pause.
const WHOLE_INPUT = new Set(['insertFromPaste', 'insertFromDrop', 'insertReplacementText']);

// Pasted text this large becomes an input of its own, listed like a dropped file, instead of
// going into the text box: a browser takes seconds to lay out megabytes in a text box.
const LARGE_PASTE = 1 << 20;

function pasteLarge(e) {
  const text = e.clipboardData?.getData('text/plain') ?? '';
  if (text.length < LARGE_PASTE) return; // the text box takes it, and its input event follows
  e.preventDefault();
  files = files.concat({ name: 'pasted text', text });
  renderFiles();
  recompute();
}

/** The rules in the page's language, filtered as the filter box says. */
let allRules = [];
const tabButtons = {};

/** The language the fragment asks for (`lang=ko`), English otherwise. */
const fragmentLang = () => {
  const asked = readFragment().get('lang');
  return LANGS.includes(asked) ? asked : 'en';
};

/** Show the page in `next`: its words, the rules, and the diagnosis on screen, all again. */
async function setLanguage(next, { write = true } = {}) {
  if (next === lang && uiWords) return;
  setReady(false);
  if (next !== 'en') await loadLanguage(next);
  lang = next;
  uiWords = coreWords(lang);
  applyPageWords(lang);
  const sw = $('lang-switch');
  sw.lang = lang === 'en' ? 'ko' : 'en';
  document.body.dataset.lang = lang;
  if (write) setFragmentKey('lang', lang === 'en' ? null : lang);
  for (const [id, key] of [['diagnose', 'tabDiagnose'], ['rules', 'tabRules'], ['practice', 'tabPractice']]) {
    if (tabButtons[id]) tabButtons[id].textContent = t(key);
  }
  $('picture-legend').replaceChildren(legend({ words: lang === 'en' ? null : uiWords, page: { legendBlocking: t('legendBlocking'), legendMisaligned: t('legendMisaligned') } }));
  allRules = rules(langOptions());
  renderRules(allRules);
  renderFiles();
  practice.relabel();
  parsed.bundle?.setLanguage(lang);
  if (fitted && shown?.target.startsWith(FIT_PREFIX)) {
    runFit();
  } else if (shown) {
    runDiagnosis();
  } else {
    recompute();
  }
  if (!shown) reportReady(false);
  document.dispatchEvent(new CustomEvent('kl-language', { detail: lang }));
}

/** The Practice tab, its bank fetched the first time it opens. */
const practice = createPractice($('panel-practice'), { lang: () => lang });

function openPractice() {
  practice.open().catch((e) => showError(e.message));
}

async function main() {
  setReady(false);
  const tabs = createTabs($('tabs'), {
    // The picture is sized to its panel: one drawn while the panel was hidden is redrawn.
    onSelect: (id) => {
      if (id === 'diagnose' && shown) drawPicture(shown.d);
      if (id === 'practice') openPractice();
    },
  });
  tabButtons.diagnose = tabs.add({ id: 'diagnose', label: 'Diagnose', panel: $('panel-diagnose') });
  tabButtons.rules = tabs.add({ id: 'rules', label: 'Rules', panel: $('panel-rules') });
  tabButtons.practice = tabs.add({ id: 'practice', label: 'Practice', panel: $('panel-practice') });
  $('picture-legend').replaceChildren(legend());
  reportReady(false);
  let lastWidth = 0;
  new ResizeObserver(() => {
    const w = $('result').clientWidth;
    if (shown && w !== lastWidth) drawPicture(shown.d);
    lastWidth = w;
  }).observe($('result'));
  await init();
  $('version').textContent = `kubectl-layer ${version()}`;
  allRules = rules();
  renderRules(allRules);
  $('rule-filter').addEventListener('input', () => renderRules(allRules));
  uiWords = coreWords('en');
  if (fragmentLang() !== 'en') await setLanguage(fragmentLang(), { write: false });
  $('lang-switch').addEventListener('click', () => setLanguage(lang === 'en' ? 'ko' : 'en').catch((e) => showError(e.message)));
  // A link or the back button changed the fragment: show the language it names.
  window.addEventListener('hashchange', () => {
    if (fragmentLang() !== lang) setLanguage(fragmentLang(), { write: false }).catch((e) => showError(e.message));
  });
  const typed = debounce(recompute, 200);
  $('bundle').addEventListener('input', (e) => (WHOLE_INPUT.has(e.inputType) ? typed.now() : typed()));
  $('bundle').addEventListener('paste', pasteLarge);
  $('target').addEventListener('change', () => runDiagnosis());
  $('diagnose').addEventListener('click', () => recompute());
  $('files').addEventListener('change', (e) => { readFiles(e.target.files); e.target.value = ''; });
  $('clear').addEventListener('click', () => { $('bundle').value = ''; files = []; renderFiles(); recompute(); });
  $('load-example').addEventListener('click', loadExample);
  $('fit').addEventListener('click', runFit);
  $('copy-markdown').addEventListener('click', async (e) => {
    if (!shown || e.target.disabled) return;
    let md;
    try {
      // A fitted piece of work exists only in fit's answer, not in the pasted bundle: its
      // Markdown is made from that answer.
      md = shown.target.startsWith(FIT_PREFIX) ? markdown(shown.d) : currentBundle(bundleInputs()).markdown(shown.target);
    } catch (err) {
      showError(err.message);
      return;
    }
    const ok = await copyText(md);
    e.target.textContent = ok ? t('copiedMarkdown') : t('copyFailed');
    setTimeout(() => { e.target.textContent = t('copyMarkdown'); }, 1500);
  });
  const drop = $('drop');
  for (const ev of ['dragenter', 'dragover']) drop.addEventListener(ev, (e) => { e.preventDefault(); drop.classList.add('over'); });
  for (const ev of ['dragleave', 'drop']) drop.addEventListener(ev, () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => { e.preventDefault(); if (e.dataTransfer?.files?.length) readFiles(e.dataTransfer.files); });
  await loadExamples();
  recompute();
}

main().catch((e) => {
  showError(say(lang, 'startError', { message: e.message }));
  setReady(true);
});
