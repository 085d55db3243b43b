// The Practice tab: the question bank `kubectl layer practice` asks from (rules/practice.json,
// generated from the scenarios, the real incidents and the contribution rules, so its answers
// are the core's own verdicts), asked one question at a time. "Which layer?" shows the symptom
// and six layers; "Contributing" asks where a finding goes and under which rules. The answer
// comes with the real diagnosis or the project's rules. The bank is fetched from this origin
// the first time the tab opens; nothing is stored, the score lives as long as the page.
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
  const score = { right: 0, asked: 0 };
  const t = (key, vars) => say(lang(), key, vars);

  const kindSelect = root.querySelector('#practice-kind');
  const next = root.querySelector('#practice-next');
  const box = root.querySelector('#practice-question');

  function pool() {
    const kind = kindSelect.value;
    return bank.questions.filter((q) => kind === 'all' || q.kind === kind);
  }

  function restart() {
    order = shuffled(pool());
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
    render();
  }

  function render() {
    if (!current) return;
    const text = current[lang()] ?? current.en;
    root.dataset.question = current.id;
    root.dataset.answered = answered ? 'true' : 'false';
    const choices = text.choices.map((c, i) => {
      const b = el('button', { type: 'button', class: 'choice', 'data-index': i }, ...withCode(`${i + 1}. ${c}`));
      b.addEventListener('click', () => choose(i));
      return b;
    });
    const source = current.source.url
      ? el('a', { href: current.source.url, rel: 'noopener noreferrer' }, current.source.url)
      : current.source.name;
    box.replaceChildren(
      el('p', { class: 'practice-score', 'data-testid': 'practice-score' }, t('practiceScore', { right: score.right, asked: score.asked })),
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
    box.querySelector('.practice-score').textContent = t('practiceScore', { right: score.right, asked: score.asked });
  }

  function choose(i) {
    if (answered) return;
    answered = true;
    lastChoice = i;
    score.asked += 1;
    if (i === current.answer) score.right += 1;
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
