//! `kubectl layer practice`: a round of questions from the generated bank (`rules/practice.json`,
//! built by `cargo xtask docs` from the scenarios, the incidents and `rules/upstreams.yaml`; see
//! `layer_core::practice`). The CLI embeds the bank, not the core: the WASM module has a size
//! budget. Answers are read one per line, so a round works from a pipe as well as a terminal.

use crate::{Failure, json, written};
use kubectl_layer::cli::{PracticeArgs, PracticeFormat, PracticeKind};
use layer_core::practice::{Bank, HeadlineCheck, Judgement, Kind, Question, round};
use layer_core::render::for_terminal;
use layer_core::{Lang, lang::Words};
use std::io::{BufRead, Write};

/// The bank `cargo xtask docs` wrote; a test holds it equal to what the generator makes now.
const BANK: &str = include_str!("../../rules/practice.json");

pub(crate) fn run(
    args: PracticeArgs,
    lang: Lang,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<u8, Failure> {
    let bank = Bank::parse(BANK).map_err(|e| Failure::new(2, "practice", e))?;
    let wanted = |q: &&Question| match args.kind {
        PracticeKind::All => true,
        PracticeKind::Layer => q.kind == Kind::Layer,
        PracticeKind::Contributing => q.kind == Kind::Contributing,
        PracticeKind::Headline => q.kind == Kind::Layer && q.headline.is_some(),
    };
    let mut questions: Vec<&Question> = bank.questions.iter().filter(wanted).collect();
    if args.export {
        let body = match args.output {
            PracticeFormat::Json => json(&serde_json::json!({
                "schemaVersion": bank.schema_version,
                "lang": lang.as_str(),
                "layerTerms": bank.layer_terms,
                "questions": questions.iter().map(|q| q.shown(lang)).collect::<Vec<_>>(),
            })),
            PracticeFormat::Text => questions.iter().map(|q| listed(q, lang)).collect(),
        };
        written(out.write_all(body.as_bytes()))?;
        return Ok(0);
    }
    let words = Words::of(lang);
    let seed = args.seed.unwrap_or_else(clock_seed);
    shuffle(&mut questions, seed);
    // Each thing once in a round: one situation of each rule, never a prompt twice.
    let questions = round(questions, args.count as usize);
    say(
        out,
        &format!(
            "{}\n\n",
            words.fill("practice.seed", &[("seed", &seed.to_string())])
        ),
    )?;
    if questions.is_empty() {
        say(out, &format!("{}\n", words.get("practice.none")))?;
        return Ok(0);
    }
    let (right, asked) = if args.kind == PracticeKind::Headline {
        headline_round(&bank, &questions, lang, input, out)?
    } else {
        choice_round(&questions, lang, input, out)?
    };
    let score = if args.kind == PracticeKind::Headline {
        "practice.headlineScore"
    } else {
        "practice.score"
    };
    let (right, asked) = (right.to_string(), asked.to_string());
    say(
        out,
        &format!(
            "{}\n",
            words.fill(score, &[("right", &right), ("asked", &asked)])
        ),
    )?;
    Ok(0)
}

fn say(out: &mut impl Write, s: &str) -> Result<(), Failure> {
    written(out.write_all(s.as_bytes()))
}

/// "Question n of m (id)", the line each question opens with.
fn heading(words: Words, n: usize, total: usize, q: &Question) -> String {
    let mut s = words.fill(
        "practice.question",
        &[
            ("n", &n.to_string()),
            ("total", &total.to_string()),
            ("id", &q.id),
        ],
    );
    s.push('\n');
    s
}

/// The next non-empty answer, asking `ask` again after an empty line; None at the end of the
/// input or on `q`.
fn next_answer(
    input: &mut impl BufRead,
    out: &mut impl Write,
    ask: &str,
) -> Result<Option<String>, Failure> {
    loop {
        let Some(line) = read_answer(input) else {
            say(out, "\n")?;
            return Ok(None);
        };
        let a = line.trim();
        if a.eq_ignore_ascii_case("q") {
            return Ok(None);
        }
        if !a.is_empty() {
            return Ok(Some(a.to_string()));
        }
        say(out, ask)?;
    }
}

/// A round of choice questions (layer, contributing): (right, asked).
fn choice_round(
    questions: &[&Question],
    lang: Lang,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<(usize, usize), Failure> {
    let words = Words::of(lang);
    let (mut right, mut asked) = (0usize, 0usize);
    'round: for (i, q) in questions.iter().enumerate() {
        let t = q.text(lang);
        let mut s = heading(words, i + 1, questions.len(), q);
        s.push_str(&shown(&t.prompt));
        for (n, c) in t.choices.iter().enumerate() {
            s.push_str(&format!("  {}. {}\n", n + 1, for_terminal(c)));
        }
        let count = t.choices.len().to_string();
        let ask = words.fill("practice.ask", &[("count", &count)]);
        s.push_str(&ask);
        say(out, &s)?;
        let _ = out.flush();
        let choice = loop {
            let Some(a) = next_answer(input, out, &ask)? else {
                break 'round;
            };
            match q.choice_of(&a) {
                Some(c) => break c,
                None => {
                    let unclear = words.fill("practice.unclear", &[("count", &count)]);
                    say(out, &format!("{unclear}\n{ask}"))?;
                }
            }
        };
        asked += 1;
        let verdict = if choice == q.answer {
            right += 1;
            words.get("practice.right")
        } else {
            words.get("practice.notQuite")
        };
        say(
            out,
            &format!(
                "{verdict}\n{}{}\n\n",
                shown(&t.explanation),
                source_line(q, words)
            ),
        )?;
    }
    Ok((right, asked))
}

/// A round of the headline exercise: the case, a title read from the input, the judgement by
/// the bank's written rules (`layer_core::practice::headline`), the tool's own headline and
/// the real diagnosis. (good titles, titles written)
fn headline_round(
    bank: &Bank,
    questions: &[&Question],
    lang: Lang,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<(usize, usize), Failure> {
    let words = Words::of(lang);
    let ask = words.get("practice.headlineAsk");
    let (mut good, mut asked) = (0usize, 0usize);
    for (i, q) in questions.iter().enumerate() {
        let Some(check) = &q.headline else {
            continue;
        };
        let mut s = heading(words, i + 1, questions.len(), q);
        s.push_str(&shown(q.case_text(lang)));
        s.push_str(&format!("{}\n{ask}", words.get("practice.writeHeadline")));
        say(out, &s)?;
        let _ = out.flush();
        let Some(title) = next_answer(input, out, ask)? else {
            break;
        };
        let j = bank.judge(q, &title).unwrap_or(Judgement {
            layer: None,
            observation: None,
        });
        asked += 1;
        good += usize::from(j.passes());
        let mut s = judged(bank, q, check, &j, words);
        // The headline quotes the bundle: made safe for the terminal like every bank text.
        s.push_str(&shown(
            &words.fill("practice.headlineTool", &[("headline", &check.headline)]),
        ));
        if let (Lang::Ko, Some(ko)) = (lang, &check.headline_ko) {
            s.push_str(&shown(&format!("  {ko}")));
        }
        s.push_str(&shown(&q.text(lang).explanation));
        s.push_str(&source_line(q, words));
        say(out, &format!("{s}\n\n"))?;
    }
    Ok((good, asked))
}

/// What the judge said of a title: one line when it names both, else a line per rule.
fn judged(bank: &Bank, q: &Question, check: &HeadlineCheck, j: &Judgement, words: Words) -> String {
    let layer = layer_core::Layer::ALL[q.answer].as_str();
    // Examples in the reader's language: Korean terms only to a Korean reader.
    let examples = |terms: &[String]| {
        let fits = |t: &&String| words.lang() == Lang::Ko || t.is_ascii();
        let some: Vec<&str> = terms
            .iter()
            .filter(fits)
            .take(3)
            .map(String::as_str)
            .collect();
        some.join(", ")
    };
    if let (Some(l), Some(o)) = (&j.layer, &j.observation) {
        return format!(
            "{}\n",
            words.fill("practice.headlinePass", &[("layer", l), ("observation", o)])
        );
    }
    let layer_terms = bank.layer_terms.get(layer).map_or(&[][..], Vec::as_slice);
    let layer_line = match &j.layer {
        Some(t) => words.fill("practice.headlineLayerOk", &[("term", t)]),
        None => words.fill(
            "practice.headlineLayerMissing",
            &[("terms", &examples(layer_terms))],
        ),
    };
    let observation_line = match &j.observation {
        Some(t) => words.fill("practice.headlineObservationOk", &[("term", t)]),
        None => words.fill(
            "practice.headlineObservationMissing",
            &[("terms", &examples(&check.observation_terms))],
        ),
    };
    format!(
        "{}\n{layer_line}\n{observation_line}\n",
        words.get("practice.notQuite")
    )
}

/// "Source: …", where a question comes from.
fn source_line(q: &Question, words: Words) -> String {
    let source = match &q.source.url {
        Some(url) => format!("{} {} ({url})", q.source.kind, q.source.name),
        None => format!("{} {}", q.source.kind, q.source.name),
    };
    for_terminal(&words.fill("practice.source", &[("source", &source)])).into_owned()
}

/// The most of one answer line kept: a choice's name is a few words. The rest of a longer
/// line is read and dropped as it arrives, so a huge line costs no more memory than this.
const ANSWER_BYTES: usize = 1024;

/// The next answer line (its first [`ANSWER_BYTES`]), or `None` at the end of the input or
/// when it cannot be read.
fn read_answer(input: &mut impl BufRead) -> Option<String> {
    let mut kept = Vec::new();
    let mut read_any = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        if buf.is_empty() {
            return read_any.then(|| String::from_utf8_lossy(&kept).into_owned());
        }
        read_any = true;
        let newline = buf.iter().position(|&b| b == b'\n');
        let take = newline.map_or(buf.len(), |i| i + 1);
        let room = ANSWER_BYTES.saturating_sub(kept.len()).min(take);
        kept.extend_from_slice(&buf[..room]);
        input.consume(take);
        if newline.is_some() {
            return Some(String::from_utf8_lossy(&kept).into_owned());
        }
    }
}

/// Bank text, line by line, made safe for the terminal (it quotes bundles' events).
fn shown(text: &str) -> String {
    text.lines()
        .map(|l| format!("{}\n", for_terminal(l)))
        .collect()
}

/// One question as `--export -o text` lists it.
fn listed(q: &Question, lang: Lang) -> String {
    let t = q.text(lang);
    let mut s = format!("## {} [{}]\n", q.id, q.kind.as_str());
    s.push_str(&shown(&t.prompt));
    for (n, c) in t.choices.iter().enumerate() {
        let mark = if n == q.answer { '*' } else { ' ' };
        s.push_str(&format!("{mark} {}. {}\n", n + 1, for_terminal(c)));
    }
    s.push_str(&shown(&t.explanation));
    s.push('\n');
    s
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() ^ u64::from(d.subsec_nanos()))
        % 1_000_000
}

/// Fisher–Yates with splitmix64: the same seed gives the same order on every platform.
fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_answer_line_is_kept_to_its_first_bytes_and_the_next_line_is_the_next_answer() {
        let mut input = std::io::Cursor::new(format!("{}\n2\nlast", "x".repeat(10 << 20)));
        let huge = super::read_answer(&mut input).unwrap();
        assert_eq!(huge.len(), super::ANSWER_BYTES);
        assert_eq!(super::read_answer(&mut input).as_deref(), Some("2\n"));
        assert_eq!(super::read_answer(&mut input).as_deref(), Some("last"));
        assert_eq!(super::read_answer(&mut input), None);
    }

    #[test]
    fn a_seed_gives_one_order_and_another_seed_another() {
        let mut a: Vec<u32> = (0..50).collect();
        let mut b = a.clone();
        let mut c = a.clone();
        super::shuffle(&mut a, 7);
        super::shuffle(&mut b, 7);
        super::shuffle(&mut c, 8);
        assert_eq!(a, b);
        assert_ne!(a, c);
        a.sort();
        assert_eq!(a, (0..50).collect::<Vec<_>>());
    }
}
