use layer_core::{Bundle, Index};
use std::collections::BTreeMap;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let ix = Index::new(Bundle::parse(std::fs::read_to_string(path).unwrap()).unwrap());
    let work: Vec<_> = layer_core::target::work_items(&ix)
        .into_iter()
        .filter(|w| !w.2)
        .map(|w| w.0)
        .collect();
    let mut sizes: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let step = (work.len() / 300).max(1);
    let mut n = 0;
    for &id in work.iter().step_by(step) {
        n += 1;
        let v = layer_core::view::build(&ix, id, None);
        for (k, val) in v.value.as_object().unwrap() {
            if k == "facts" {
                for (a, av) in val.as_object().unwrap() {
                    if let Some(m) = av.as_object() {
                        for (f, fv) in m {
                            let e = sizes.entry(format!("facts.{a}.{f}")).or_default();
                            e.0 += serde_json::to_string(fv).unwrap().len();
                            e.1 += 1;
                        }
                    } else {
                        let e = sizes.entry(format!("facts.{a}")).or_default();
                        e.0 += serde_json::to_string(av).unwrap().len();
                        e.1 += 1;
                    }
                }
            } else {
                let e = sizes.entry(k.clone()).or_default();
                e.0 += serde_json::to_string(val).unwrap().len();
                e.1 += 1;
            }
        }
    }
    let mut v: Vec<_> = sizes.into_iter().collect();
    v.sort_by_key(|(_, (s, _))| std::cmp::Reverse(*s));
    println!("views sampled: {n}");
    for (k, (s, c)) in v.iter().take(40) {
        println!("{:>12} avg {:>9} {k}", s, s / n);
        let _ = c;
    }
}
