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

// A large text crosses into the module as UTF-8 bytes encoded natively (TextEncoder), not
// through wasm-bindgen's string glue, which copies it a character at a time in a JavaScript
// loop while it is ASCII; encodeInto() fills one buffer of the text's length. kubectl's output
// is almost always ASCII, one byte a character: that size is tried first, and anything else is
// encoded whole.
function utf8(text) {
  const encoder = new TextEncoder();
  const buf = new Uint8Array(text.length);
  const { read, written } = encoder.encodeInto(text, buf);
  return read === text.length ? buf.subarray(0, written) : encoder.encode(text);
}
const targetText = (t) => (t == null || t === '' ? '' : JSON.stringify(t));

function freed() {
  const err = new Error('kubectl-layer: this Bundle was freed; parse the input again');
  err.code = 'usage';
  return err;
}

// Only Bundle.parse makes a Bundle: a handle must own a parsed bundle.
const token = Symbol('kubectl-layer Bundle');

// A language code as the core reads it (`ko`, `ko-KR`, `ko_KR.UTF-8` are Korean).
const langCode = (lang) => String(lang ?? '').trim().toLowerCase().split(/[-_.]/)[0];

// `readTexts(code)`: the texts of a language, synchronously, where the platform can (Node reads
// the file beside the module); null where they must be loaded first (`loadLanguage`).
// `readDocs(code)`: the same for the rules' documentation (`web/rules.<code>.json`), which the
// module leaves out to keep its size for code: `rules()` lays it over the module's list.
export function bind(raw, ensureReady, readTexts = () => null, readDocs = () => null) {
  const call = (fn, ...args) => {
    ensureReady();
    try {
      return fn(...args);
    } catch (e) {
      throw normalize(e);
    }
  };
  const installed = new Set(['en']);
  // The texts a call's language needs, installed once; an unknown code is left for the core
  // to refuse with its own message.
  const prepare = (lang) => {
    const code = langCode(lang);
    if (code !== 'ko' || installed.has(code)) return;
    const texts = readTexts(code);
    if (texts == null) return;
    call(raw.installLanguage, code, texts);
    installed.add(code);
  };
  const docs = new Map();
  const installDocs = (code, text) => {
    try {
      docs.set(code, JSON.parse(text));
    } catch (e) {
      const err = new Error(`kubectl-layer: the rules' documentation (web/rules.${code}.json) does not read: ${e.message}`);
      err.code = 'internal';
      throw err;
    }
  };
  // The documentation of `code`'s rules: read where the platform can, else what init() or
  // loadLanguage() fetched; a clear error where neither has it.
  const docsOf = (code) => {
    if (!docs.has(code)) {
      const text = readDocs(code);
      if (text == null) {
        const err = new Error(
          `kubectl-layer: the rules' documentation (web/rules.${code}.json) is not loaded: await init()${code === 'en' ? '' : ` and loadLanguage('${code}')`} first, with the file beside the module`,
        );
        err.code = 'not-initialized';
        throw err;
      }
      installDocs(code, text);
    }
    return docs.get(code);
  };
  // A rule of the module's list with its documentation in place, keys in the module's order.
  const documented = (rule, own) => {
    if (!own) {
      const err = new Error(`kubectl-layer: the rules' documentation has no rule ${rule.id}: the package's files are from different builds`);
      err.code = 'internal';
      throw err;
    }
    return Object.fromEntries(Object.entries(rule).map(([k, v]) => [k, k in own ? own[k] : v]));
  };
  const langOf = (options) => (options && typeof options === 'object' ? options.lang : undefined);
  const install = (code, texts) => {
    call(raw.installLanguage, code, texts);
    installed.add(code);
  };
  // One bundle read and indexed once; each method asks the same index (see the README).
  class Bundle {
    #raw;

    constructor(key, handle) {
      if (key !== token) {
        const err = new TypeError('use Bundle.parse(bundle, options?) to make a Bundle');
        err.code = 'usage';
        throw err;
      }
      this.#raw = handle;
    }

    static parse(bundle, options) {
      prepare(langOf(options));
      const bytes = utf8(bundleText(bundle));
      return new Bundle(token, call(() => new raw.RawBundle(bytes, optionsText(options))));
    }

    #ask(method, ...args) {
      if (!this.#raw) throw freed();
      return call(() => this.#raw[method](...args));
    }

    setLanguage(lang) {
      prepare(lang);
      this.#ask('setLang', String(lang));
    }

    targets() {
      return JSON.parse(this.#ask('targetsJson'));
    }

    diagnose(target) {
      return JSON.parse(this.#ask('diagnoseJson', targetText(target)));
    }

    /** The CLI's name for diagnose. */
    why(target) {
      return this.diagnose(target);
    }

    scan() {
      return JSON.parse(this.#ask('scanJson'));
    }

    object(ref) {
      return JSON.parse(this.#ask('objectJson', JSON.stringify(ref)));
    }

    markdown(target) {
      return this.#ask('markdown', targetText(target));
    }

    text(target) {
      return this.#ask('text', targetText(target));
    }

    /** Release the parsed bundle now rather than when it is garbage-collected. */
    free() {
      this.#raw?.free();
      this.#raw = null;
    }
  }
  if (Symbol.dispose) Bundle.prototype[Symbol.dispose] = Bundle.prototype.free;

  return {
    Bundle,
    diagnose(bundle, target, options) {
      prepare(langOf(options));
      return JSON.parse(call(raw.diagnoseJson, utf8(bundleText(bundle)), targetText(target), optionsText(options)));
    },
    fit(cluster, manifest, options) {
      prepare(langOf(options));
      return JSON.parse(call(raw.fitJson, utf8(bundleText(cluster)), utf8(bundleText(manifest)), optionsText(options)));
    },
    scan(bundle, options) {
      prepare(langOf(options));
      return JSON.parse(call(raw.scanJson, utf8(bundleText(bundle)), optionsText(options)));
    },
    targets(bundle, options) {
      return JSON.parse(call(raw.targetsJson, utf8(bundleText(bundle)), optionsText(options)));
    },
    rules(options) {
      prepare(langOf(options));
      const list = JSON.parse(call(raw.rulesJson, optionsText(options)));
      const own = docsOf(langCode(langOf(options)) || 'en');
      return list.map((r) => documented(r, own[r.id]));
    },
    object(bundle, ref) {
      return JSON.parse(call(raw.objectJson, utf8(bundleText(bundle)), JSON.stringify(ref)));
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
    words(lang = 'en') {
      prepare(lang);
      return JSON.parse(call(raw.wordsJson, String(lang)));
    },
    // For the entry points' loadLanguage: hand over texts loaded asynchronously.
    installLanguage(lang, texts) {
      const code = langCode(lang);
      if (code === 'en' || installed.has(code)) return;
      install(code, texts);
    },
    // For the browser entry point: the documentation it fetched.
    installDocs(lang, text) {
      installDocs(langCode(lang), text);
    },
    needsTexts(lang) {
      const code = langCode(lang);
      return code === 'ko' && !installed.has(code);
    },
  };
}
