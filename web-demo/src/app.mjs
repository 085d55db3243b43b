// The paste-in triage page: every judgement comes from the kubectl-layer npm package (the same
// core as the CLI), loaded from this origin. Nothing is stored or sent: inputs live in memory
// only, and the Content-Security-Policy forbids talking to any other host. Every value from the
// bundle is shown with textContent, never parsed as HTML.
import { init, diagnose, targets, rules, object, markdown, version } from './pkg/index.web.mjs';

const $ = (id) => document.getElementById(id);
const LAYERS = ['device', 'admission', 'grouping', 'placement', 'runtime', 'serving'];
const STATE_LABEL = { ok: 'ok', blocked: 'BLOCKED', warn: 'WARN', unknown: 'unknown', notInvolved: 'not involved' };

/** Dropped or opened files: {name, text}. */
let files = [];
/** The diagnosis on screen, and the input and target it belongs to. */
let shown = null;
let generation = 0;

function el(tag, attrs = {}, ...children) {
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

const setReady = (ready) => { document.body.dataset.ready = ready ? 'true' : 'false'; };

function bundleInputs() {
  const pasted = $('bundle').value;
  return [pasted, ...files.map((f) => f.text)].filter((t) => t.trim() !== '');
}

function showError(message) {
  const box = $('error');
  box.hidden = !message;
  box.textContent = message ? `Could not read the input: ${message}` : '';
}

function clearResult(message) {
  const v = $('verdict');
  v.dataset.layer = '';
  v.dataset.state = '';
  v.dataset.target = '';
  v.textContent = message;
  $('headline').textContent = '';
  for (const id of ['misalignment', 'layers', 'findings-section', 'next-section', 'pods-section', 'missing-section', 'report']) $(id).hidden = true;
  shown = null;
}

function targetValue(t) {
  return `${t.kind}/${t.namespace ?? ''}/${t.name}`;
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
      showError('');
      select.replaceChildren();
      select.disabled = true;
      clearResult('Paste a bundle to see which layer blocks the work.');
      setReady(true);
      return;
    }
    let list;
    try {
      list = targets(inputs);
    } catch (e) {
      showError(e.message);
      select.replaceChildren();
      select.disabled = true;
      clearResult('No diagnosis: the input could not be read.');
      setReady(true);
      return;
    }
    showError('');
    const previous = select.value;
    select.replaceChildren(
      ...list.map((t) => el('option', { value: t.value }, `${t.needsAttention ? '⚠ ' : ''}${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name} — ${t.status}`)),
    );
    select.disabled = list.length === 0;
    if (list.length === 0) {
      clearResult('The bundle holds no pod or workload to diagnose.');
      setReady(true);
      return;
    }
    select.value = list.some((t) => t.value === previous) ? previous : list[0].value;
    runDiagnosis(gen);
  }, 0);
}

function runDiagnosis(gen = ++generation) {
  setReady(false);
  const target = $('target').value;
  try {
    const d = diagnose(bundleInputs(), target);
    if (gen !== generation) return;
    render(d, target);
  } catch (e) {
    showError(e.message);
    clearResult('No diagnosis for this target.');
  }
  if (gen === generation) setReady(true);
}

function verdictText(d) {
  const v = d.verdict;
  if (v.state === 'blocked') return `Blocked at ${v.layer}`;
  if (v.state === 'warn') return `Warning at ${v.layer}`;
  if (v.state === 'ok') return 'ok: nothing blocks this work';
  return 'unknown: the bundle does not show what blocks it';
}

function render(d, target) {
  shown = { d, target };
  const v = $('verdict');
  v.dataset.layer = d.verdict.layer ?? '';
  v.dataset.state = d.verdict.state;
  v.dataset.target = target;
  v.textContent = `${d.target.kind} ${d.target.namespace ? `${d.target.namespace}/` : ''}${d.target.name} is ${d.target.status}. ${verdictText(d)}`;
  $('headline').textContent = d.verdict.headline;

  const m = d.verdict.misalignment;
  $('misalignment').hidden = !m;
  const saidYes = m && m.saidYesByConfiguration ? `${m.saidYes}'s configuration` : m?.saidYes;
  $('misalignment').textContent = m ? `${saidYes} said yes, ${m.saidNo} said no: ${m.why}` : '';

  $('layer-rows').replaceChildren(
    ...d.layers.map((l) =>
      el('tr', { 'data-layer': l.layer, 'data-state': l.state },
        el('th', { scope: 'row' }, l.layer),
        el('td', { class: `state state-${l.state}` }, STATE_LABEL[l.state] ?? l.state),
        el('td', { class: 'decided' }, l.decidedBy.join(', ')),
        el('td', { class: 'summary' }, l.summary))),
  );
  $('layers').hidden = false;

  $('findings').replaceChildren(...d.findings.map(findingItem));
  $('findings-section').hidden = d.findings.length === 0;

  $('next').replaceChildren(...d.next.map((cmd) => el('li', {}, el('code', {}, cmd), copyButton(cmd, `Copy command: ${cmd}`))));
  $('next-section').hidden = d.next.length === 0;

  $('pods').replaceChildren(...(d.pods ?? []).map((p) => el('li', {}, `${p.name} — ${p.status}${p.node ? ` on ${p.node}` : ''}`)));
  $('pods-section').hidden = !(d.pods ?? []).length;

  $('missing').replaceChildren(...d.missing.map((x) => el('li', {}, `${x.kind} ${[x.namespace, x.name].filter(Boolean).join('/')}: ${x.why}`)));
  $('missing-section').hidden = d.missing.length === 0;

  const repos = [...new Set(d.findings.filter((f) => f.severity !== 'info').map((f) => f.upstream).filter(Boolean))];
  $('report-hint').textContent = repos.length ? `Report to ${repos.join(', ')}; the Markdown includes each project's contribution rules.` : '';
  $('report').hidden = false;
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
      pre.textContent = JSON.stringify(object(bundleInputs(), o), null, 2);
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
  const b = el('button', { type: 'button', 'aria-label': label }, 'Copy');
  b.addEventListener('click', async () => {
    const ok = await copyText(text);
    b.textContent = ok ? 'Copied' : 'Copy failed';
    setTimeout(() => { b.textContent = 'Copy'; }, 1500);
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
        el('button', { type: 'button', 'aria-label': `Remove ${f.name}`, onclick: () => { files.splice(i, 1); renderFiles(); recompute(); } }, 'Remove'))),
  );
}

function renderRules(all) {
  const filter = $('rule-filter').value.trim().toLowerCase();
  const groups = LAYERS.map((layer) => {
    const items = all.filter((r) => r.layer === layer && (!filter || `${r.id} ${r.summary} ${r.kind}`.toLowerCase().includes(filter)));
    if (items.length === 0) return null;
    return el('section', { 'data-layer': layer },
      el('h3', {}, layer),
      ...items.map((r) => el('details', { 'data-rule': r.id },
        el('summary', {}, `${r.id} — ${r.summary}`),
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

function debounce(fn, ms) {
  let t;
  return () => { setReady(false); clearTimeout(t); t = setTimeout(fn, ms); };
}

async function main() {
  setReady(false);
  await init();
  $('version').textContent = `kubectl-layer ${version()}`;
  const all = rules();
  renderRules(all);
  $('rule-filter').addEventListener('input', () => renderRules(all));
  $('bundle').addEventListener('input', debounce(recompute, 200));
  $('target').addEventListener('change', () => runDiagnosis());
  $('diagnose').addEventListener('click', () => recompute());
  $('files').addEventListener('change', (e) => { readFiles(e.target.files); e.target.value = ''; });
  $('clear').addEventListener('click', () => { $('bundle').value = ''; files = []; renderFiles(); recompute(); });
  $('load-example').addEventListener('click', loadExample);
  $('copy-markdown').addEventListener('click', async (e) => {
    if (!shown) return;
    const ok = await copyText(markdown(shown.d));
    e.target.textContent = ok ? 'Copied Markdown' : 'Copy failed';
    setTimeout(() => { e.target.textContent = 'Copy as Markdown'; }, 1500);
  });
  const drop = $('drop');
  for (const ev of ['dragenter', 'dragover']) drop.addEventListener(ev, (e) => { e.preventDefault(); drop.classList.add('over'); });
  for (const ev of ['dragleave', 'drop']) drop.addEventListener(ev, () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => { e.preventDefault(); if (e.dataTransfer?.files?.length) readFiles(e.dataTransfer.files); });
  await loadExamples();
  recompute();
}

main().catch((e) => {
  showError(`the page could not start: ${e.message}`);
  setReady(true);
});
