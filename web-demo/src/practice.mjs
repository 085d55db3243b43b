// The Practice tab: the question bank `kubectl layer practice` asks from (rules/practice.json,
// generated from the scenarios, the real incidents and the contribution rules, so its answers
// are the core's own verdicts), asked one question at a time. "Which layer?" shows the symptom
// and six layers; "Contributing" asks what a project's rules ask, naming no answer; "Headline"
// shows a case and judges the issue title typed for it by the bank's written rules (the same as
// `kubectl layer practice --kind headline`, layer_core::practice::headline), then shows the
// tool's own headline. The answer comes with the real diagnosis or the project's rules. The
// bank is fetched from this origin the first time the tab opens; nothing is stored, the score
// lives as long as the page.
import { say } from './i18n.mjs';
import { el, withCode } from './dom.mjs';

/** `list` in a new random order (Fisher–Yates). */
function shuffled(list) {
  const out = list.slice();
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** The first questions of `list` that ask each thing once: no prompt twice, and one situation
 * of each rule (`asks`), as a CLI round does (layer_core::practice::round). */
function once(list) {
  const seen = new Set();
  return list.filter((q) => {
    const key = q.asks ?? q.en.prompt;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Whether `term` stands alone in `lower` (lowercased): no ASCII letter or digit right before
 * or after it. The rule of layer_core::practice::headline::stands_in. */
export function standsIn(lower, term) {
  const t = term.toLowerCase();
  if (!t) return false;
  const alnum = (c) => c !== undefined && /[A-Za-z0-9]/.test(c);
  for (let i = lower.indexOf(t); i !== -1; i = lower.indexOf(t, i + 1)) {
    if (!alnum(lower[i - 1]) && !alnum(lower[i + t.length])) return true;
  }
  return false;
}

/** A title judged by the bank's two rules: the first layer term and the first observation term
 * it names (null where none). */
export function judgeTitle(bank, q, title) {
  const lower = title.toLowerCase();
  const layer = LAYERS[q.answer];
  const first = (terms) => (terms ?? []).find((x) => standsIn(lower, x)) ?? null;
  return { layer: first(bank.layerTerms?.[layer]), observation: first(q.headline?.observationTerms) };
}

/** The layers in the order the bank's answers index them (layer_core::Layer::ALL). */
const LAYERS = ['device', 'admission', 'grouping', 'placement', 'runtime', 'serving'];

/**
 * The practice panel inside `root`. `lang()` is the page's language at the moment of asking.
 * Returns `{open, relabel, ask(id)}`: `open` loads the bank once and shows a question,
 * `relabel` shows the question on screen in the page's new language, `ask` shows a given one.
 */
export function createPractice(root, { lang }) {
  let bank = null;
  let order = [];
  let at = -1;
  let current = null;
  let answered = false;
  let lastChoice = null;
  let lastTitle = '';
  // A score per kind: a title judged is not a choice answered.
  const scores = {};
  const score = () => {
    scores[kindSelect.value] ??= { right: 0, asked: 0 };
    return scores[kindSelect.value];
  };
  const t = (key, vars) => say(lang(), key, vars);

  const kindSelect = root.querySelector('#practice-kind');
  const next = root.querySelector('#practice-next');
  const box = root.querySelector('#practice-question');

  function pool() {
    const kind = kindSelect.value;
    if (kind === 'headline') return bank.questions.filter((q) => q.kind === 'layer' && q.headline);
    return bank.questions.filter((q) => kind === 'all' || q.kind === kind);
  }

  function restart() {
    order = once(shuffled(pool()));
    at = -1;
    advance();
  }

  function advance() {
    if (order.length === 0) return;
    at = (at + 1) % order.length;
    show(order[at]);
  }

  function show(q) {
    current = q;
    answered = false;
    lastTitle = '';
    render();
  }

  /** The case, without its closing "which layer?" line, as the CLI shows it. */
  function caseText(text) {
    const lines = text.prompt.trimEnd().split('\n');
    return lines.slice(0, -1).join('\n');
  }

  function renderHeadline(text) {
    const input = el('input', { type: 'text', id: 'practice-title-input', 'data-testid': 'practice-title', 'aria-label': t('practiceTitleLabel'), autocomplete: 'off' });
    const form = el('form', { class: 'practice-headline' }, input,
      el('button', { type: 'submit', 'data-testid': 'practice-judge' }, t('practiceJudge')));
    form.addEventListener('submit', (e) => { e.preventDefault(); judge(input.value); });
    box.replaceChildren(
      el('p', { class: 'practice-score', 'data-testid': 'practice-score' }, t('practiceHeadlineScore', { right: score().right, asked: score().asked })),
      el('pre', { class: 'practice-prompt', 'data-testid': 'practice-prompt' }, caseText(text)),
      el('p', {}, t('practiceWriteHeadline')),
      form,
      el('div', { class: 'practice-verdict', 'data-testid': 'practice-verdict', 'aria-live': 'polite' }),
      el('pre', { class: 'practice-explanation', 'data-testid': 'practice-explanation', hidden: true }, text.explanation),
    );
    if (answered) { input.value = lastTitle; showJudgement(lastTitle); }
  }

  function judge(title) {
    if (answered || !title.trim()) return;
    answered = true;
    lastTitle = title;
    const j = judgeTitle(bank, current, title);
    score().asked += 1;
    if (j.layer && j.observation) score().right += 1;
    root.dataset.answered = 'true';
    showJudgement(title);
  }

  function showJudgement(title) {
    const j = judgeTitle(bank, current, title);
    const good = Boolean(j.layer && j.observation);
    const ascii = (x) => lang() === 'ko' || /^[\x20-\x7e]*$/.test(x);
    const examples = (terms) => (terms ?? []).filter(ascii).slice(0, 3).join(', ');
    const lines = good
      ? [t('practiceHeadlinePass', { layer: j.layer, observation: j.observation })]
      : [
        j.layer ? t('practiceLayerOk', { term: j.layer }) : t('practiceLayerMissing', { terms: examples(bank.layerTerms?.[LAYERS[current.answer]]) }),
        j.observation ? t('practiceObservationOk', { term: j.observation }) : t('practiceObservationMissing', { terms: examples(current.headline.observationTerms) }),
      ];
    const tool = lang() === 'ko' && current.headline.headlineKo
      ? `${current.headline.headline}\n${current.headline.headlineKo}`
      : current.headline.headline;
    const verdict = box.querySelector('.practice-verdict');
    verdict.replaceChildren(
      ...lines.map((l) => el('p', {}, l)),
      el('p', { class: 'practice-tool-headline', 'data-testid': 'practice-tool-headline' }, t('practiceToolHeadline', { headline: tool })),
    );
    verdict.dataset.right = good ? 'true' : 'false';
    box.querySelector('[data-testid="practice-judge"]').disabled = true;
    box.querySelector('.practice-explanation').hidden = false;
    box.querySelector('.practice-score').textContent = t('practiceHeadlineScore', { right: score().right, asked: score().asked });
  }

  function render() {
    if (!current) return;
    const text = current[lang()] ?? current.en;
    root.dataset.question = current.id;
    root.dataset.answered = answered ? 'true' : 'false';
    if (kindSelect.value === 'headline') {
      renderHeadline(text);
      return;
    }
    const choices = text.choices.map((c, i) => {
      const b = el('button', { type: 'button', class: 'choice', 'data-index': i }, ...withCode(`${i + 1}. ${c}`));
      b.addEventListener('click', () => choose(i));
      return b;
    });
    const source = current.source.url
      ? el('a', { href: current.source.url, rel: 'noopener noreferrer' }, current.source.url)
      : current.source.name;
    box.replaceChildren(
      el('p', { class: 'practice-score', 'data-testid': 'practice-score' }, t('practiceScore', { right: score().right, asked: score().asked })),
      el('pre', { class: 'practice-prompt', 'data-testid': 'practice-prompt' }, text.prompt),
      el('div', { class: 'practice-choices', role: 'group', 'aria-label': t('practiceChoices') }, ...choices),
      el('p', { class: 'practice-verdict', 'data-testid': 'practice-verdict', 'aria-live': 'polite' }),
      el('pre', { class: 'practice-explanation', 'data-testid': 'practice-explanation', hidden: true }, text.explanation),
      el('p', { class: 'hint practice-source' }, `${t('practiceSource')} `, source),
    );
    if (answered) reveal(lastChoice);
  }

  function reveal(chosen) {
    const right = chosen === current.answer;
    for (const b of box.querySelectorAll('.choice')) {
      const i = Number(b.dataset.index);
      b.disabled = true;
      if (i === current.answer) b.classList.add('right');
      else if (i === chosen) b.classList.add('wrong');
    }
    const text = current[lang()] ?? current.en;
    const verdict = box.querySelector('.practice-verdict');
    verdict.replaceChildren(...withCode(right ? t('practiceRight') : t('practiceWrong', { answer: text.choices[current.answer] })));
    verdict.dataset.right = right ? 'true' : 'false';
    box.querySelector('.practice-explanation').hidden = false;
    box.querySelector('.practice-score').textContent = t('practiceScore', { right: score().right, asked: score().asked });
  }

  function choose(i) {
    if (answered) return;
    answered = true;
    lastChoice = i;
    score().asked += 1;
    if (i === current.answer) score().right += 1;
    root.dataset.answered = 'true';
    reveal(i);
  }

  async function load() {
    if (bank) return;
    const res = await fetch('practice.json');
    if (!res.ok) throw new Error(`practice.json: ${res.status}`);
    bank = await res.json();
    root.dataset.questions = String(bank.questions.length);
  }

  kindSelect.addEventListener('change', () => { if (bank) restart(); });
  next.addEventListener('click', () => { if (bank) advance(); });

  return {
    async open() {
      await load();
      if (!current) restart();
    },
    relabel() {
      render();
    },
    async ask(id) {
      await load();
      const q = bank.questions.find((x) => x.id === id);
      if (q) show(q);
      return q ?? null;
    },
  };
}
