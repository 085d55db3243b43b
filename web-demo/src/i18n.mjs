// The page's own words in English and Korean: its headings, buttons, hints and messages. The
// diagnosis itself (summaries, findings, the layer and state names, the verdict's words) comes
// from the core in the chosen language (`{lang}` and `words(lang)` of the package), so the page
// and the CLI say the same things; only what exists on the page alone is here. The language is
// kept in the URL fragment (`lang=ko`), never in storage.
//
// In a text, a `backtick span` becomes a <code> element: built with DOM calls, never parsed as
// HTML, so the CSP and the page's no-markup rule hold.

export const LANGS = ['en', 'ko'];

const EN = {
  skip: 'Skip to the diagnosis',
  tagline: 'Name the layer before you name the tool.',
  privacy: 'Everything runs in this page. Nothing you paste or drop is stored or sent anywhere.',
  tabsLabel: 'Page',
  tabDiagnose: 'Diagnose',
  tabRules: 'Rules',
  tabPractice: 'Practice',
  switchTo: '한국어',
  switchLabel: '한국어로 보기 (Korean)',
  inputTitle: '1. Paste or drop `kubectl get` output',
  inputHint: 'JSON or YAML: for example `kubectl get pods,nodes,events,jobs,workloads,localqueues,clusterqueues -A -o json`, several outputs one after another, or a `kubectl layer bundle` file.',
  bundleLabel: 'Bundle',
  bundlePlaceholder: 'Paste here, or drop files on this box',
  openFiles: 'Open files…',
  example: 'Example',
  examplePick: 'built-in examples…',
  loadExample: 'Load example',
  clear: 'Clear',
  droppedFiles: 'Dropped files',
  remove: 'Remove',
  fitTitle: 'Would it fit?',
  fitHint: 'Paste work as you would `kubectl apply` it (a Pod, Job, JobSet, LeaderWorkerSet, Deployment or StatefulSet, YAML or JSON): it is judged against the cluster above as if submitted now, layer by layer.',
  manifestLabel: 'Manifest',
  manifestPlaceholder: 'Paste a manifest here',
  fitButton: 'Would it fit?',
  resultTitle: '2. Diagnosis',
  target: 'Target',
  diagnose: 'Diagnose',
  layersCaption: 'The six layers',
  colLayer: 'layer',
  colState: 'state',
  colDecided: 'decided by',
  colWhat: 'what it decided',
  timeline: 'Timeline',
  colTime: 'time',
  colObject: 'object',
  colMoment: 'what',
  findings: 'Findings',
  next: 'Next',
  pods: 'Pods',
  missing: 'Not in the bundle',
  copyMarkdown: 'Copy as Markdown',
  copiedMarkdown: 'Copied Markdown',
  copy: 'Copy',
  copied: 'Copied',
  copyFailed: 'Copy failed',
  copyCommand: 'Copy command: {cmd}',
  rulesTitle: 'Rules',
  filter: 'Filter',
  filterPlaceholder: 'layer, id or words',
  footer: 'the same core as the `kubectl layer` plugin, compiled to WebAssembly.',
  pasteFirst: 'Paste a bundle to see which layer blocks the work.',
  unreadable: 'No diagnosis: the input could not be read.',
  noWork: 'The bundle holds no pod or workload to diagnose.',
  noDiagnosis: 'No diagnosis for this target.',
  readError: 'Could not read the input: {message}',
  fitError: 'Could not fit the manifest: {message}',
  fitNoManifest: 'paste the work to fit first',
  fitNoBundle: "paste the cluster's bundle above first: the manifest is judged against it",
  startError: 'the page could not start: {message}',
  reportWaiting: 'Diagnose a target first: the Markdown is its report.',
  reportTo: 'Report to {repos}; the Markdown includes each project\'s contribution rules.',
  earlier: '{count} earlier moments left out.',
  onNode: ' on {node}',
  legendBlocking: 'blocks here: the layer the verdict names',
  legendMisaligned: 'dashed arrow: from the layer that said yes to the one that said no',
  practiceTitle: 'Practice: name the layer',
  practiceHint: 'A symptom as you would meet it, then the six layers: which one decided? The answer is the real diagnosis of a scenario or of an incident reported upstream. Contributing questions ask where a finding goes and what that project asks of you.',
  practiceKind: 'Questions',
  kindAll: 'all',
  kindLayer: 'which layer?',
  kindContributing: 'contributing',
  practiceNext: 'Next question',
  practiceScore: '{right} of {asked} right',
  practiceChoices: 'Choices',
  practiceRight: 'Right.',
  practiceWrong: 'Not quite. The answer: {answer}',
  practiceSource: 'From:',
  // The verdict line, as the page has always said it in English.
  isStatus: '{what} is {status}. {verdict}',
  notSubmitted: '{what}, not submitted: {verdict}',
  blockedAt: 'Blocked at {layer}',
  wouldBlockAt: 'would be blocked at {layer}',
  warnAt: 'Warning at {layer}',
  ok: 'ok: nothing blocks this work',
  wouldRun: 'would run now',
  unknown: 'unknown: the bundle does not show what blocks it',
  wouldUnknown: 'unknown: the bundle does not show that it would run',
  outlook: 'Outlook: {outlook} — {words}',
  saidYesConfig: "{layer}'s configuration",
  misalignment: '{saidYes} said yes, {saidNo} said no: {why}',
};

const KO = {
  skip: '진단으로 건너뛰기',
  tagline: '도구를 말하기 전에 층을 말하세요.',
  privacy: '모든 일은 이 페이지 안에서 일어납니다. 붙여 넣거나 끌어다 놓은 것은 어디에도 저장하거나 보내지 않습니다.',
  tabsLabel: '페이지',
  tabDiagnose: '진단',
  tabRules: '규칙',
  tabPractice: '연습',
  switchTo: 'English',
  switchLabel: 'Show in English (영어로 보기)',
  inputTitle: '1. `kubectl get` 출력을 붙여 넣거나 끌어다 놓으세요',
  inputHint: 'JSON 이나 YAML: 예를 들어 `kubectl get pods,nodes,events,jobs,workloads,localqueues,clusterqueues -A -o json` 출력, 여러 출력을 이어 붙인 것, 또는 `kubectl layer bundle` 파일.',
  bundleLabel: '번들',
  bundlePlaceholder: '여기에 붙여 넣거나 파일을 끌어다 놓으세요',
  openFiles: '파일 열기…',
  example: '예제',
  examplePick: '내장 예제…',
  loadExample: '예제 불러오기',
  clear: '지우기',
  droppedFiles: '끌어다 놓은 파일',
  remove: '빼기',
  fitTitle: '여기서 돌아갈까?',
  fitHint: '`kubectl apply` 할 때처럼 작업을 붙여 넣으세요(Pod, Job, JobSet, LeaderWorkerSet, Deployment, StatefulSet 의 YAML 이나 JSON). 지금 제출했다고 보고 위 클러스터에 층마다 견주어 봅니다.',
  manifestLabel: '매니페스트',
  manifestPlaceholder: '매니페스트를 여기에 붙여 넣으세요',
  fitButton: '돌아갈까?',
  resultTitle: '2. 진단',
  target: '대상',
  diagnose: '진단하기',
  layersCaption: '여섯 층',
  colLayer: '층',
  colState: '상태',
  colDecided: '결정한 것',
  colWhat: '결정한 내용',
  timeline: '타임라인',
  colTime: '시각',
  colObject: '객체',
  colMoment: '내용',
  findings: '발견',
  next: '다음에 볼 것',
  pods: '파드',
  missing: '번들에 없는 것',
  copyMarkdown: 'Markdown 으로 복사',
  copiedMarkdown: 'Markdown 을 복사했습니다',
  copy: '복사',
  copied: '복사했습니다',
  copyFailed: '복사하지 못했습니다',
  copyCommand: '명령 복사: {cmd}',
  rulesTitle: '규칙',
  filter: '거르기',
  filterPlaceholder: '층, id, 낱말',
  footer: '`kubectl layer` 플러그인과 같은 코어를 WebAssembly 로 컴파일한 것입니다.',
  pasteFirst: '번들을 붙여 넣으면 어느 층이 작업을 막는지 보여 줍니다.',
  unreadable: '진단 없음: 입력을 읽지 못했습니다.',
  noWork: '번들에 진단할 파드나 워크로드가 없습니다.',
  noDiagnosis: '이 대상은 진단하지 못했습니다.',
  readError: '입력을 읽지 못했습니다: {message}',
  fitError: '매니페스트를 견주어 보지 못했습니다: {message}',
  fitNoManifest: '견주어 볼 작업을 먼저 붙여 넣으세요',
  fitNoBundle: '위에 클러스터 번들을 먼저 붙여 넣으세요. 매니페스트는 그 클러스터에 견주어 봅니다',
  startError: '페이지를 시작하지 못했습니다: {message}',
  reportWaiting: '먼저 대상을 진단하세요. Markdown 은 그 진단의 보고서입니다.',
  reportTo: '보고할 곳: {repos}. Markdown 에 프로젝트마다 기여 규칙이 들어 있습니다.',
  earlier: '이전 시점 {count}개는 생략했습니다.',
  onNode: ' ({node} 노드)',
  legendBlocking: '여기서 막힘: 판정이 가리키는 층',
  legendMisaligned: '점선 화살표: 허락한 층에서 막은 층으로',
  practiceTitle: '연습: 층 이름 대기',
  practiceHint: '현장에서 마주칠 증상을 보여 주고 여섯 층을 늘어놓습니다. 어느 층이 결정했을까요? 정답은 시나리오나 업스트림에 보고된 실제 사건의 진짜 진단입니다. 기여 문제는 발견을 어디에 보고하고 그 프로젝트가 무엇을 요구하는지 묻습니다.',
  practiceKind: '문제',
  kindAll: '모두',
  kindLayer: '어느 층?',
  kindContributing: '기여',
  practiceNext: '다음 문제',
  practiceScore: '{asked}문제 중 {right}개 맞힘',
  practiceChoices: '보기',
  practiceRight: '맞았습니다.',
  practiceWrong: '아쉽습니다. 정답: {answer}',
  practiceSource: '출처:',
  isStatus: '{what} ({status}): {verdict}',
  notSubmitted: '{what} (아직 제출 전): {verdict}',
  blockedAt: '{layer} 층에서 막힘',
  wouldBlockAt: '{layer} 층에서 막힐 것',
  warnAt: '{layer} 층에서 경고',
  ok: '정상: 이 작업을 막는 것이 없습니다',
  wouldRun: '지금 실행될 것',
  unknown: '알 수 없음: 번들만으로는 무엇이 막는지 알 수 없습니다',
  wouldUnknown: '알 수 없음: 번들만으로는 실행될지 알 수 없습니다',
  outlook: '전망: {outlook} — {words}',
  saidYesConfig: '{layer} 설정',
  misalignment: '{saidYes} 층은 허락했지만 {saidNo} 층이 막았습니다: {why}',
};

export const PAGE = { en: EN, ko: KO };

/** `key` of `lang`'s page words, its `{name}` placeholders filled in one pass. */
export function say(lang, key, vars = {}) {
  const template = (PAGE[lang] ?? EN)[key] ?? EN[key] ?? key;
  return template.replace(/\{([A-Za-z]+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
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

/**
 * The page's static words in `lang`: an element with `data-i18n="key"` gets the text (code
 * spans kept), `data-i18n-placeholder` and `data-i18n-label` set its placeholder and
 * aria-label.
 */
export function applyPageWords(lang, root = document) {
  document.documentElement.lang = lang;
  for (const node of root.querySelectorAll('[data-i18n]')) node.replaceChildren(...withCode(say(lang, node.dataset.i18n)));
  for (const node of root.querySelectorAll('[data-i18n-placeholder]')) node.placeholder = say(lang, node.dataset.i18nPlaceholder);
  for (const node of root.querySelectorAll('[data-i18n-label]')) node.setAttribute('aria-label', say(lang, node.dataset.i18nLabel));
}
