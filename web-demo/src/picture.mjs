// The diagnosis as the layer stack the course note draws: a pod's path admission → grouping →
// placement → runtime → serving, with device as the floor under placement and runtime. Each
// box is coloured by its layer's state and says the state in words (colour is never the only
// cue), the blocking layer is marked, and a misalignment is a dashed arrow from the layer that
// said yes to the one that said no. The same picture as the Markdown's Mermaid block
// (core/src/picture.rs). Built with createElementNS and text nodes only: names from the bundle
// are text, never markup; colours come from classes in style.css (the CSP allows no inline
// style).

const SVG = 'http://www.w3.org/2000/svg';
const PATH = ['admission', 'grouping', 'placement', 'runtime', 'serving'];
const ON_DEVICE = ['placement', 'runtime'];
/** What a box says for a state (the JSON's `notInvolved` reads as two words). */
export const STATE_WORDS = { ok: 'ok', blocked: 'blocked', warn: 'warn', unknown: 'unknown', notInvolved: 'not involved' };
/** Below this width the path runs down the page instead of across it. */
const NARROW = 560;
/** Characters of "decided by" a box shows; the whole text is its tooltip. */
const DECIDED_CHARS = 18;

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

const shorten = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * Geometry in path coordinates (u along the path, v across it), turned into x/y by `at`: the
 * wide picture runs the path left to right, the narrow one top to bottom, with the same code.
 */
function geometry(wide) {
  const g = wide
    ? { along: 124, across: 86, gap: 30, arc: 44, floorGap: 30, floor: 70, pad: 8 }
    : { along: 76, across: 158, gap: 22, arc: 44, floorGap: 30, floor: 118, pad: 8 };
  const at = (u, v) => (wide ? [u, v] : [v, u]);
  const box = {};
  PATH.forEach((layer, i) => {
    const u0 = g.pad + i * (g.along + g.gap);
    box[layer] = { u0, u1: u0 + g.along, v0: g.pad + g.arc, v1: g.pad + g.arc + g.across };
  });
  const [first, last] = [box[ON_DEVICE[0]], box[ON_DEVICE[ON_DEVICE.length - 1]]];
  const v0 = box.admission.v1 + g.floorGap;
  box.device = { u0: first.u0, u1: last.u1, v0, v1: v0 + g.floor };
  const uMax = box.serving.u1 + g.pad;
  const vMax = box.device.v1 + g.pad;
  const [width, height] = at(uMax, vMax);
  return { g, at, box, width, height };
}

/** A rectangle of path coordinates as SVG x, y, width, height. */
function rect(at, b) {
  const [x0, y0] = at(b.u0, b.v0);
  const [x1, y1] = at(b.u1, b.v1);
  return { x: Math.min(x0, x1), y: Math.min(y0, y1), width: Math.abs(x1 - x0), height: Math.abs(y1 - y0) };
}

function layerBox(geo, l, blocking, name, say) {
  const r = rect(geo.at, geo.box[l.layer]);
  const words = say.state(l.state);
  const by = l.decidedBy.join(', ');
  const group = svg('g', {
    class: `layer-box state-${l.state}${blocking ? ' blocking' : ''}`,
    'data-layer': l.layer,
    'data-state': l.state,
    'data-blocking': blocking ? 'true' : 'false',
  });
  group.append(svg('title', {}, `${name(l.layer)}: ${words}${blocking ? `, ${say.blocksHere}` : ''}${by ? ` (${say.decidedBy} ${by})` : ''}`));
  group.append(svg('rect', { ...r, rx: 7 }));
  const cx = r.x + r.width / 2;
  const lines = [
    ['layer-name', name(l.layer)],
    ['layer-state', words],
    ...(by ? [['layer-by', shorten(by, DECIDED_CHARS)]] : []),
    ...(blocking ? [['layer-mark', say.blocksHere]] : []),
  ];
  const top = r.y + r.height / 2 - ((lines.length - 1) * 17) / 2 + 5;
  lines.forEach(([cls, text], i) => group.append(svg('text', { class: cls, x: cx, y: top + i * 17, 'text-anchor': 'middle' }, text)));
  return group;
}

/** The solid links: each step of the path, and the floor under placement and runtime. */
function links(geo) {
  const out = [];
  const mid = (b) => (b.v0 + b.v1) / 2;
  for (let i = 0; i + 1 < PATH.length; i += 1) {
    const [a, b] = [geo.box[PATH[i]], geo.box[PATH[i + 1]]];
    const [x1, y1] = geo.at(a.u1, mid(a));
    const [x2, y2] = geo.at(b.u0 - 3, mid(b));
    out.push(svg('line', { class: 'path-step', x1, y1, x2, y2, 'marker-end': 'url(#picture-step)' }));
  }
  for (const layer of ON_DEVICE) {
    const b = geo.box[layer];
    const u = (b.u0 + b.u1) / 2;
    const [x1, y1] = geo.at(u, b.v1);
    const [x2, y2] = geo.at(u, geo.box.device.v0);
    out.push(svg('line', { class: 'floor', x1, y1, x2, y2 }));
  }
  return out;
}

/**
 * The misalignment arrow: between two path layers an arc on the far side from the floor;
 * between a path layer and device a line beside the floor's own link.
 */
function misalignmentArrow(geo, m) {
  const { box } = geo;
  const [yes, no] = [box[m.saidYes], box[m.saidNo]];
  if (!yes || !no) return null;
  const centre = (b) => (b.u0 + b.u1) / 2;
  let d;
  if (m.saidYes !== 'device' && m.saidNo !== 'device') {
    const [x1, y1] = geo.at(centre(yes) + 10, yes.v0);
    const [x2, y2] = geo.at(centre(no) - 10, no.v0 - 3);
    const [cx, cy] = geo.at((centre(yes) + centre(no)) / 2, yes.v0 - geo.g.arc * 1.7);
    d = `M ${x1} ${y1} Q ${cx} ${cy} ${x2} ${y2}`;
  } else {
    const other = m.saidYes === 'device' ? no : yes;
    const u = Math.min(Math.max(centre(other) + 22, box.device.u0 + 12), box.device.u1 - 12);
    const ends = [geo.at(u, box.device.v0), geo.at(centre(other) + 22, other.v1)];
    const [[x1, y1], [x2, y2]] = m.saidYes === 'device' ? [ends[0], ends[1]] : [ends[1], ends[0]];
    d = `M ${x1} ${y1} L ${x2} ${y2}`;
  }
  return svg('path', { class: 'misalignment-arrow', d, 'marker-end': 'url(#picture-misaligned)', 'data-said-yes': m.saidYes, 'data-said-no': m.saidNo });
}

function markers() {
  const marker = (id, cls) => svg('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerUnits: 'userSpaceOnUse', markerWidth: 10, markerHeight: 10, orient: 'auto-start-reverse' },
    svg('path', { class: cls, d: 'M 0 0 L 10 5 L 0 10 z' }));
  return svg('defs', {}, marker('picture-step', 'step-head'), marker('picture-misaligned', 'misaligned-head'));
}

/**
 * What the boxes say: the English words, or those of `words` (the core's `words(lang)`: the
 * same `state.*` and `picture.*` texts as the Markdown's Mermaid picture).
 */
function sayer(words) {
  if (!words) return { state: (s) => STATE_WORDS[s] ?? s, blocksHere: 'blocks here', decidedBy: 'decided by' };
  return {
    state: (s) => words[`state.${s}`] ?? s,
    blocksHere: words['picture.blocksHere'] ?? 'blocks here',
    decidedBy: words['picture.decidedBy'] ?? 'decided by',
  };
}

/**
 * The picture of diagnosis `d` for a container `width` pixels wide. `name` gives the word a box
 * shows for a layer (the contract's name in English); `words`, the core's words of the page's
 * language, what it says of states.
 */
export function picture(d, { width = 800, name = (layer) => layer, words = null } = {}) {
  const say = sayer(words);
  const geo = geometry(width >= NARROW);
  const blockingLayer = d.verdict.state === 'blocked' ? d.verdict.layer : null;
  const m = d.verdict.misalignment;
  const label = [
    `Layer stack: ${d.layers.map((l) => `${name(l.layer)} ${say.state(l.state)}`).join(', ')}.`,
    blockingLayer ? `Blocks at ${name(blockingLayer)}.` : '',
    m ? `Misalignment: ${name(m.saidYes)} said yes, ${name(m.saidNo)} said no.` : '',
  ].filter(Boolean).join(' ');
  const root = svg('svg', {
    class: `picture-svg ${width >= NARROW ? 'wide' : 'narrow'}`,
    viewBox: `0 0 ${geo.width} ${geo.height}`,
    width: geo.width,
    height: geo.height,
    role: 'img',
    'aria-label': label,
    'data-testid': 'picture',
  });
  root.append(svg('title', {}, label), markers(), ...links(geo));
  for (const l of d.layers) {
    if (geo.box[l.layer]) root.append(layerBox(geo, l, l.layer === blockingLayer, name, say));
  }
  const arrow = m && misalignmentArrow(geo, m);
  if (arrow) root.append(arrow);
  return root;
}

/** The legend: each state's colour beside its word, the blocking mark and the arrow; `page`,
 * the page's words for the last two lines (English by default). */
export function legend({ words = null, page = null } = {}) {
  const say = sayer(words);
  const item = (cls, text) => {
    const li = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = `swatch ${cls}`;
    swatch.setAttribute('aria-hidden', 'true');
    li.append(swatch, document.createTextNode(text));
    return li;
  };
  const ul = document.createElement('ul');
  ul.className = 'picture-legend';
  ul.append(
    ...Object.keys(STATE_WORDS).map((state) => item(`state-${state}`, say.state(state))),
    item('blocking', page?.legendBlocking ?? 'blocks here: the layer the verdict names'),
    item('misaligned', page?.legendMisaligned ?? 'dashed arrow: from the layer that said yes to the one that said no'),
  );
  return ul;
}
