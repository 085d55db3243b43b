// The package's functions over the raw wasm exports: plain objects in and out, and JS Errors
// with a stable `code` (the CLI's codes). Shared by the Node and browser entry points.

function normalize(e) {
  if (e instanceof Error) {
    if (!e.code) e.code = 'internal';
    return e;
  }
  const err = new Error(String(e));
  err.code = 'internal';
  return err;
}

// Several inputs travel joined by NUL (which JSON and YAML text cannot contain); the core reads
// each on its own and merges them.
function bundleText(bundle) {
  if (Array.isArray(bundle)) return bundle.map(bundleText).join('\0');
  if (typeof bundle === 'string') return bundle;
  if (bundle instanceof Uint8Array) return new TextDecoder().decode(bundle);
  if (bundle && typeof bundle === 'object') return JSON.stringify(bundle);
  const err = new TypeError('bundle must be a string (kubectl get … -o json or -o yaml output), an object, or an array of them');
  err.code = 'usage';
  throw err;
}

const optionsText = (o) => (o == null ? '' : JSON.stringify(o));

export function bind(raw, ensureReady) {
  const call = (fn, ...args) => {
    ensureReady();
    try {
      return fn(...args);
    } catch (e) {
      throw normalize(e);
    }
  };
  return {
    diagnose(bundle, target, options) {
      const t = target == null || target === '' ? '' : JSON.stringify(target);
      return JSON.parse(call(raw.diagnoseJson, bundleText(bundle), t, optionsText(options)));
    },
    scan(bundle, options) {
      return JSON.parse(call(raw.scanJson, bundleText(bundle), optionsText(options)));
    },
    targets(bundle, options) {
      return JSON.parse(call(raw.targetsJson, bundleText(bundle), optionsText(options)));
    },
    rules() {
      return JSON.parse(call(raw.rulesJson));
    },
    object(bundle, ref) {
      return JSON.parse(call(raw.objectJson, bundleText(bundle), JSON.stringify(ref)));
    },
    markdown(diagnosis) {
      return call(raw.markdownJson, JSON.stringify(diagnosis));
    },
    text(diagnosis) {
      return call(raw.textJson, JSON.stringify(diagnosis));
    },
    version() {
      return call(raw.version);
    },
  };
}
