//! `kubectl layer practice`: a round played through a pipe scores what it should, a seed
//! repeats a round, the export is the committed bank in the chosen language, bad usage is 2.

use super::{bin, run, stderr, stdout};
use layer_core::practice::{Bank, Question};
use std::io::Write;
use std::process::{Output, Stdio};

fn bank() -> Bank {
    let path = scenarios::practice::bank_path();
    Bank::parse(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn play(args: &[&str], answers: &str) -> Output {
    let mut child = bin()
        .arg("practice")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(answers.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// The questions a round asked, in order (from its `Question n of m (id)` lines).
fn asked<'b>(text: &str, bank: &'b Bank) -> Vec<&'b Question> {
    text.lines()
        .filter_map(|l| {
            l.strip_prefix("Question ")?
                .rsplit_once(" (")?
                .1
                .strip_suffix(')')
        })
        .map(|id| {
            bank.questions
                .iter()
                .find(|q| q.id == id)
                .unwrap_or_else(|| panic!("asked {id}, not in the bank"))
        })
        .collect()
}

#[test]
fn a_piped_round_scores_the_answers_given() {
    let bank = bank();
    let args = ["--seed", "7", "--count", "4"];
    // Everything answered 1: right exactly where the answer is the first choice.
    let o = play(&args, "1\n1\n1\n1\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let qs = asked(&text, &bank);
    assert_eq!(qs.len(), 4, "{text}");
    let right = qs.iter().filter(|q| q.answer == 0).count();
    assert!(text.contains("Seed 7"), "{text}");
    assert!(
        text.trim_end().ends_with(&format!("Score: {right} of 4.")),
        "{text}"
    );
    // The same seed asks the same questions; the first answered by its name (any case), the
    // second wrongly by number, then the input ends: the round ends with the score so far.
    let first = &qs[0];
    let wrong = (qs[1].answer + 1) % qs[1].en.choices.len() + 1;
    let answers = format!("{}\n{wrong}\n", first.en.names[first.answer].to_uppercase());
    let o = play(&args, &answers);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    let again: Vec<&str> = asked(&text, &bank).iter().map(|q| q.id.as_str()).collect();
    assert_eq!(again[..2], [qs[0].id.as_str(), qs[1].id.as_str()]);
    assert!(
        text.contains("Right.") && text.contains("Not quite."),
        "{text}"
    );
    assert!(
        text.contains(first.en.explanation.lines().next().unwrap()),
        "{text}"
    );
    assert!(text.trim_end().ends_with("Score: 1 of 2."), "{text}");
    // An answer that names no choice is asked again, not scored; q quits.
    let o = play(&args, "maybe\nq\n");
    let text = stdout(&o);
    assert!(text.contains("Answer with a number from 1 to"), "{text}");
    assert!(text.trim_end().ends_with("Score: 0 of 0."), "{text}");
}

#[test]
fn a_huge_answer_line_is_one_unclear_answer_and_the_round_goes_on() {
    let huge = "1".repeat(32 << 20);
    let o = play(&["--seed", "7", "--count", "2"], &format!("{huge}\nq\n"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(
        text.matches("Answer with a number from 1 to").count(),
        1,
        "{text}"
    );
    assert!(text.trim_end().ends_with("Score: 0 of 0."), "{text}");
}

#[test]
fn kind_selects_the_questions() {
    let o = play(
        &["--kind", "contributing", "--seed", "1", "--count", "3"],
        "",
    );
    assert_eq!(o.status.code(), Some(0));
    let qs = asked(&stdout(&o), &bank())
        .into_iter()
        .map(|q| q.id.clone())
        .collect::<Vec<_>>();
    assert_eq!(
        qs.len(),
        1,
        "EOF at the first question ends the round: {qs:?}"
    );
    assert!(qs[0].starts_with("contributing/"), "{qs:?}");
}

#[test]
fn export_json_is_the_committed_bank_in_the_chosen_language() {
    let bank = bank();
    for (lang, hangul) in [("en", false), ("ko", true)] {
        let o = run(&["practice", "--export", "-o", "json", "--lang", lang]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        let l = layer_core::Lang::parse(lang).unwrap();
        let want: Vec<serde_json::Value> = bank
            .questions
            .iter()
            .map(|q| serde_json::to_value(q.shown(l)).unwrap())
            .collect();
        assert_eq!(v["questions"].as_array().unwrap(), &want, "{lang}");
        assert_eq!(v["lang"], lang);
        let korean = |s: &serde_json::Value| {
            s.as_str()
                .unwrap()
                .chars()
                .any(|c| ('\u{ac00}'..='\u{d7a3}').contains(&c))
        };
        for q in v["questions"].as_array().unwrap() {
            assert_eq!(korean(&q["explanation"]), hangul, "{lang} {}", q["id"]);
            assert_eq!(korean(&q["prompt"]), hangul, "{lang} {}", q["id"]);
        }
    }
    let text = stdout(&run(&["practice", "--export", "--kind", "layer"]));
    assert!(text.contains("## layer/") && !text.contains("## contributing/"));
}

#[test]
fn bad_usage_is_exit_2() {
    for args in [
        &["practice", "--kind", "layers"][..],
        &["practice", "--count", "0"],
        &["practice", "-o", "json"],
        &["practice", "--seed", "x"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    let help = stdout(&run(&["practice", "--help"]));
    assert!(
        help.contains("kubectl layer practice --kind layer --count 5 --seed 42"),
        "{help}"
    );
}

/// `--kind headline` through a pipe: a title with the layer and the observation passes, one
/// without the layer or without the observation is told which is missing; every case ends with
/// the tool's own headline; the score counts good titles; Korean asks in Korean.
#[test]
fn a_piped_headline_round_judges_each_title_by_the_written_rules() {
    let bank = bank();
    let args = ["--kind", "headline", "--seed", "11", "--count", "3"];
    let o = play(&args, "q\n");
    let qs = asked(&stdout(&o), &bank);
    assert_eq!(qs.len(), 1, "q ends the round");
    let o = play(&args, "x\nx\nx\n");
    let qs = asked(&stdout(&o), &bank);
    assert_eq!(qs.len(), 3);
    let layer = |q: &Question| layer_core::Layer::ALL[q.answer].as_str().to_string();
    let observation = |q: &Question| q.headline.as_ref().unwrap().observation_terms[0].clone();
    let titles = format!(
        "{}: {}\n{}\n{} is broken\n",
        layer(qs[0]),
        observation(qs[0]),
        observation(qs[1]),
        layer(qs[2]),
    );
    let o = play(&args, &titles);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let again: Vec<&str> = asked(&text, &bank).iter().map(|q| q.id.as_str()).collect();
    assert_eq!(again, qs.iter().map(|q| q.id.as_str()).collect::<Vec<_>>());
    assert_eq!(
        text.matches("A good title: it names the layer").count(),
        1,
        "{text}"
    );
    assert_eq!(text.matches("Layer: not named.").count(), 1, "{text}");
    assert_eq!(text.matches("Observation: missing.").count(), 1, "{text}");
    for q in &qs {
        let h = &q.headline.as_ref().unwrap().headline;
        assert!(
            text.contains(&format!("The tool's headline: {h}")),
            "{text}"
        );
        // The case is shown, its "which layer?" line is not.
        assert!(text.contains(q.case_text(layer_core::Lang::En)), "{text}");
    }
    assert!(!text.contains("Which layer decided this?"), "{text}");
    assert!(
        text.trim_end().ends_with("Titles that name both: 1 of 3."),
        "{text}"
    );
    let ko = stdout(&play(&[&args[..], &["--lang", "ko"]].concat(), &titles));
    assert!(
        ko.contains("이슈 제목을 한 줄로") && ko.contains("둘 다 말한 제목: 3개 중 1개."),
        "{ko}"
    );
}

/// A round asks each thing once: no prompt twice, and one situation of each rule however many
/// repositories share it.
#[test]
fn a_round_never_asks_the_same_thing_twice() {
    let bank = bank();
    for kind in ["contributing", "all"] {
        let answers = "1\n".repeat(400);
        let o = play(&["--kind", kind, "--seed", "3", "--count", "400"], &answers);
        let qs = asked(&stdout(&o), &bank);
        let mut keys: Vec<String> = qs
            .iter()
            .map(|q| q.asks.clone().unwrap_or_else(|| q.en.prompt.clone()))
            .collect();
        let n = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), n, "{kind}: a round asked something twice");
        let situations = qs.iter().filter(|q| q.asks.is_some()).count();
        let in_bank = bank.questions.iter().filter(|q| q.asks.is_some()).count();
        assert!(
            situations > 0 && situations < in_bank,
            "{kind}: {situations} of {in_bank}"
        );
    }
}
