//! A name that many objects share (an `apiVersion`, a `kind`, a namespace), held once, and
//! the three together ([`TypeAndNamespace`]), held once for every object that has them.
//!
//! A bundle of 78,000 objects has a few dozen distinct API versions, kinds and namespaces.
//! As a `String` apiece, the three took 24 bytes each in every object plus an allocation
//! each (about 5 MB of a 1,000-node scan's peak, and three of the reader's four allocations
//! an object). A [`Name`] is a pointer to text the reader made once ([`Names`]); it reads,
//! compares, hashes and prints as the text it holds.

use crate::fnv::Fnv;
use std::borrow::Borrow;
use std::collections::HashMap;
use std::fmt;
use std::hash::BuildHasherDefault;
use std::ops::Deref;
use std::sync::Arc;

/// Text shared by every object that carries it.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Name(Arc<str>);

impl Name {
    #[inline]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Name {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// As a map key, a `Name` is looked up by its text (their hashes agree: `Arc<str>` hashes as
/// `str`).
impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name(s.into())
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name(s.into())
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == &*other.0
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        **self == *other.0
    }
}

/// As the text: `"v1"`, quoted, the way a `String` shows.
impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

/// An object's `apiVersion`, `kind` and namespace: a bundle of 78,000 objects has a few
/// hundred distinct ones, so each object points to one (8 bytes) instead of holding three
/// [`Name`]s (48).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TypeAndNamespace {
    pub api_version: Name,
    pub kind: Name,
    pub namespace: Option<Name>,
}

/// The names one reader has made, each handed out again for the same text.
#[derive(Default)]
pub(crate) struct Names {
    made: HashMap<Name, ()>,
    /// The last few handed out: objects come in runs of one kind and namespace, and comparing
    /// a few short texts costs less than hashing one.
    recent: [Option<Name>; 4],
    next: usize,
    /// By the addresses of its three names' texts: each text is made once here, so the same
    /// addresses are the same texts, and hashing three addresses costs less than three texts.
    types: HashMap<[usize; 3], Arc<TypeAndNamespace>, BuildHasherDefault<Fnv>>,
    /// The last few handed out, for the same reason as `recent`.
    recent_types: [Option<Arc<TypeAndNamespace>>; 4],
    next_type: usize,
}

impl Names {
    pub(crate) fn get(&mut self, text: &str) -> Name {
        if let Some(name) = self.recent.iter().flatten().find(|n| n.as_str() == text) {
            return name.clone();
        }
        let name = match self.made.get_key_value(text) {
            Some((name, ())) => name.clone(),
            None => {
                let name = Name::from(text);
                self.made.insert(name.clone(), ());
                name
            }
        };
        self.recent[self.next] = Some(name.clone());
        self.next = (self.next + 1) % self.recent.len();
        name
    }

    pub(crate) fn type_and_namespace(
        &mut self,
        api_version: &str,
        kind: &str,
        namespace: Option<&str>,
    ) -> Arc<TypeAndNamespace> {
        if let Some(held) = self.recent_types.iter().flatten().find(|t| {
            t.kind == kind && t.namespace.as_deref() == namespace && t.api_version == api_version
        }) {
            return held.clone();
        }
        let names = TypeAndNamespace {
            api_version: self.get(api_version),
            kind: self.get(kind),
            namespace: namespace.map(|n| self.get(n)),
        };
        let address = |n: &Name| n.0.as_ptr() as usize;
        let key = [
            address(&names.api_version),
            address(&names.kind),
            names.namespace.as_ref().map_or(0, address),
        ];
        let held = self
            .types
            .entry(key)
            .or_insert_with(|| Arc::new(names))
            .clone();
        self.recent_types[self.next_type] = Some(held.clone());
        self.next_type = (self.next_type + 1) % self.recent_types.len();
        held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_reads_compares_and_prints_as_its_text() {
        let mut names = Names::default();
        let a = names.get("batch/v1");
        let b = names.get("batch/v1");
        assert!(Arc::ptr_eq(&a.0, &b.0), "one text for both");
        assert_eq!(a, "batch/v1");
        assert_eq!("batch/v1", a);
        assert_eq!(a, "batch/v1".to_string());
        assert_ne!(a, names.get("v1"));
        assert_eq!(format!("{a} {a:?}"), "batch/v1 \"batch/v1\"");
        let mut by_name: HashMap<Name, u8> = HashMap::new();
        by_name.insert(a.clone(), 1);
        assert_eq!(by_name.get("batch/v1"), Some(&1));
        assert!(names.get("apps/v1") < a, "ordered as text");
    }

    #[test]
    fn one_type_and_namespace_is_made_for_the_same_three_texts() {
        let mut names = Names::default();
        let pod = |names: &mut Names, ns| names.type_and_namespace("v1", "Pod", ns);
        let a = pod(&mut names, Some("team-a"));
        // Enough others in between that the recent ones no longer hold `a`.
        for i in 0..8 {
            names.type_and_namespace("v1", "Pod", Some(&format!("ns-{i}")));
        }
        let again = pod(&mut names, Some("team-a"));
        assert!(Arc::ptr_eq(&a, &again), "made once");
        assert_eq!(again.api_version, "v1");
        assert_eq!(again.kind, "Pod");
        assert_eq!(again.namespace.as_deref(), Some("team-a"));
        let cluster_wide = pod(&mut names, None);
        assert_eq!(cluster_wide.namespace, None);
        assert!(!Arc::ptr_eq(&a, &cluster_wide));
        let other_kind = names.type_and_namespace("v1", "Event", Some("team-a"));
        assert_eq!(other_kind.kind, "Event");
        assert_eq!(
            *pod(&mut names, Some("team-a")),
            *a,
            "the same three texts again"
        );
        let other_group = names.type_and_namespace("example.com/v1", "Pod", Some("team-a"));
        assert_eq!(other_group.api_version, "example.com/v1");
    }
}
