//! The bundle reader on arbitrary bytes: it returns objects or an error, and never panics,
//! overflows the stack or hangs. Every accepted object must parse again as JSON.

#![no_main]

use layer_core::{Bundle, ReadLimits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    for max_depth in [ReadLimits::DEFAULT_MAX_DEPTH, ReadLimits::MAX_DEPTH_JSON] {
        let limits = ReadLimits {
            max_depth,
            ..ReadLimits::default()
        };
        match Bundle::parse_with(text.clone(), limits) {
            Ok(b) => {
                for o in b.objects() {
                    assert!(!o.name.is_empty(), "an object without a name was accepted");
                    let v = b.value(o);
                    assert!(
                        v.is_object(),
                        "accepted object does not parse: {}",
                        b.raw(o)
                    );
                }
                let _ = serde_json::to_string(&b.meta());
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                let _ = e.code();
            }
        }
    }
});
