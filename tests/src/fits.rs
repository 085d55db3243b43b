//! The fit catalogue: every directory of `tests/fits/` holds a manifest (`manifest.yaml`), the
//! cluster it is fitted into (`cluster.yaml`, or `cluster.ref` naming a bundle relative to
//! `tests/fits/`: a shared one under `clusters/` or a scenario's) and what `fit` must say of
//! each piece of work (`expected.json`, in the scenarios' format; `exit` is 0 when the work
//! would run now, 1 otherwise).

use crate::Expectation;
use std::path::{Path, PathBuf};

/// One fit case.
#[derive(Debug, Clone)]
pub struct FitCase {
    pub name: String,
    pub dir: PathBuf,
    pub cluster_path: PathBuf,
    pub manifest_path: PathBuf,
    pub expectations: Vec<Expectation>,
}

impl FitCase {
    pub fn cluster_text(&self) -> String {
        read(&self.cluster_path)
    }

    pub fn manifest_text(&self) -> String {
        read(&self.manifest_path)
    }
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The `tests/fits` directory.
pub fn fits_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fits")
}

/// Every fit case, sorted by name. Panics with a clear message on a malformed one.
pub fn all() -> Vec<FitCase> {
    let root = fits_dir();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/fits exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("manifest.yaml").exists())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|dir| {
            let name = dir
                .file_name()
                .expect("named")
                .to_string_lossy()
                .to_string();
            let cluster_path = if dir.join("cluster.yaml").exists() {
                dir.join("cluster.yaml")
            } else {
                let r = read(&dir.join("cluster.ref"));
                root.join(r.trim())
            };
            let text = read(&dir.join("expected.json"));
            let expectations: Vec<Expectation> = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("fit {name}: expected.json: {e}"));
            FitCase {
                manifest_path: dir.join("manifest.yaml"),
                name,
                dir,
                cluster_path,
                expectations,
            }
        })
        .collect()
}

/// A fit case by name.
pub fn get(name: &str) -> Option<FitCase> {
    all().into_iter().find(|c| c.name == name)
}
