//! An object's uid as the bundle holds it. The API server writes uids as lowercase UUIDs
//! (`8-4-4-4-12` hex digits), which fit in 16 bytes where the text took 72 (a string and its
//! allocation): on a 1,000-node bundle of 72,000 objects, 4 MB less to hold. A uid written any
//! other way (by hand, in upper case) is kept as written, so every uid reads back exactly.

use std::fmt;

/// An object's `metadata.uid`.
/// Ordered as held (for sorted tables), not as written.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uid(Held);

#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Held {
    /// Bytes, not a `u128`: a `u128`'s alignment would make every object 16 bytes larger.
    Uuid([u8; 16]),
    Text(Box<str>),
}

/// Where the dashes of a canonical UUID are.
const DASHES: [usize; 4] = [8, 13, 18, 23];
const LEN: usize = 36;

impl Uid {
    pub fn new(text: &str) -> Uid {
        Uid(match uuid_bytes(text) {
            Some(bytes) => Held::Uuid(bytes),
            None => Held::Text(text.into()),
        })
    }

    /// `f` given the uid as written (without allocating).
    pub fn with_str<R>(&self, f: impl FnOnce(&str) -> R) -> R {
        match &self.0 {
            Held::Text(t) => f(t),
            Held::Uuid(bytes) => {
                let mut buf = [0u8; LEN];
                f(write_uuid(bytes, &mut buf))
            }
        }
    }
}

impl PartialEq<str> for Uid {
    fn eq(&self, other: &str) -> bool {
        self.with_str(|s| s == other)
    }
}

impl fmt::Debug for Uid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.with_str(|s| fmt::Debug::fmt(s, f))
    }
}

impl fmt::Display for Uid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.with_str(|s| f.write_str(s))
    }
}

/// The 16 bytes of a lowercase canonical UUID, or None for any other text. Byte by byte, not
/// through a `u128`: the module (wasm32) has no 128-bit arithmetic and spent 4% of reading a
/// bundle in Node shifting one.
fn uuid_bytes(text: &str) -> Option<[u8; 16]> {
    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        }
    }
    let b = text.as_bytes();
    if b.len() != LEN || DASHES.iter().any(|&d| b[d] != b'-') {
        return None;
    }
    let mut bytes = [0u8; 16];
    let mut at = 0;
    for (k, byte) in bytes.iter_mut().enumerate() {
        // Past a dash before bytes 4, 6, 8 and 10, as `write_uuid` writes them.
        at += usize::from(matches!(k, 4 | 6 | 8 | 10));
        *byte = digit(b[at])? << 4 | digit(b[at + 1])?;
        at += 2;
    }
    Some(bytes)
}

fn write_uuid<'b>(bytes: &[u8; 16], buf: &'b mut [u8; LEN]) -> &'b str {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut at = 0;
    for (k, byte) in bytes.iter().enumerate() {
        // A dash before bytes 4, 6, 8 and 10 (after 8, 12, 16 and 20 digits).
        if matches!(k, 4 | 6 | 8 | 10) {
            buf[at] = b'-';
            at += 1;
        }
        buf[at] = HEX[usize::from(byte >> 4)];
        buf[at + 1] = HEX[usize::from(byte & 0xf)];
        at += 2;
    }
    // Only ASCII digits and dashes were written.
    std::str::from_utf8(buf).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_uid_reads_back_as_written_and_canonical_ones_are_held_as_bits() {
        for (text, canonical) in [
            ("910a2dec-8902-4cc1-8bee-8da1658eec67", true),
            ("00000000-0000-0000-0000-000000000000", true),
            ("ffffffff-ffff-ffff-ffff-ffffffffffff", true),
            // Kept as written.
            ("910A2DEC-8902-4CC1-8BEE-8DA1658EEC67", false),
            ("910a2dec89024cc18bee8da1658eec67", false),
            ("910a2dec-8902-4cc1-8bee-8da1658eec6g", false),
            ("910a2dec-8902-4cc1-8bee_8da1658eec67", false),
            ("910a2dec-8902-4cc1-8bee-8da1658eec6", false),
            ("é10a2dec-8902-4cc1-8bee-8da1658eec6", false),
            ("uid-a", false),
            ("", false),
        ] {
            let uid = Uid::new(text);
            assert_eq!(matches!(uid.0, Held::Uuid(_)), canonical, "{text}");
            assert!(uid == *text, "{text}");
            assert_eq!(uid.to_string(), text);
            assert_eq!(format!("{uid:?}"), format!("{text:?}"));
        }
        // Every byte value in every place, read back through the 16 bytes.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..500 {
            let bytes: Vec<u8> = (0..16)
                .map(|_| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    (seed >> 56) as u8
                })
                .collect();
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let text = format!(
                "{}-{}-{}-{}-{}",
                &hex[..8],
                &hex[8..12],
                &hex[12..16],
                &hex[16..20],
                &hex[20..]
            );
            let uid = Uid::new(&text);
            assert!(
                matches!(&uid.0, Held::Uuid(b) if b[..] == bytes[..]),
                "{text}"
            );
            assert_eq!(uid.to_string(), text);
        }
        assert!(Uid::new("uid-a") != *"uid-b");
        let a = Uid::new("910a2dec-8902-4cc1-8bee-8da1658eec67");
        assert!(a != *"910a2dec-8902-4cc1-8bee-8da1658eec68");
        assert!(a != Uid::new("910a2dec-8902-4cc1-8bee-8da1658eec68"));
    }
}
