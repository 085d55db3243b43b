// A Vite app that uses the package the way its README says: import from 'kubectl-layer' (the
// bundler picks the browser entry), await init(), diagnose. The outcome goes into data-*
// attributes for the test to read; an error goes there too, so the test can say what failed.
import { init, loadLanguage, diagnose, text } from 'kubectl-layer';
import bundle from './bundle.json?raw';
import testCase from './case.json';

const body = document.body;
try {
  await init();
  const d = diagnose(bundle, testCase.target);
  document.querySelector('#out').textContent = text(d);
  body.dataset.state = d.verdict.state;
  body.dataset.layer = d.verdict.layer ?? 'none';
  // The Korean texts are a second file beside the module, fetched by URL: the bundler must
  // have carried it along too.
  await loadLanguage('ko');
  body.dataset.headlineKo = diagnose(bundle, testCase.target, { lang: 'ko' }).verdict.headlineKo ?? '';
} catch (e) {
  body.dataset.error = `${e.code ?? ''} ${e.message}`;
}
body.dataset.ready = 'true';
