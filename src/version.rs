//! Bundle versions, parsed tolerantly like OLM.
//!
//! OLM reads bundle versions with `github.com/blang/semver/v4` `ParseTolerant`, which
//! normalizes a few common deviations before strict semver parsing. [`Version::parse`]
//! applies the same normalization:
//!
//! * surrounding whitespace is trimmed;
//! * one leading `v` is stripped (deppy also strips `V`; blang only strips `v`);
//! * leading zeros are removed from the major, minor and patch parts
//!   (`01.02.03` → `1.2.3`);
//! * a missing minor and/or patch is filled with `0` (`1` → `1.0.0`, `1.2` → `1.2.0`),
//!   but, as in blang, a shortened version may not carry pre-release or build metadata
//!   (`1.2-alpha` is an error).
//!
//! Pre-release and build metadata follow semver 2.0.0. Comparison by precedence
//! ([`Version::cmp_precedence`]) ignores build metadata, like blang's `Compare`.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// A bundle version: semver, parsed tolerantly like OLM (blang/semver ParseTolerant).
///
/// Equality and hashing consider build metadata (`1.0.0+a != 1.0.0+b`); the total order
/// ([`Ord`]) is semver precedence with build metadata as a final tie-break, so it is
/// consistent with [`Eq`]. Use [`Version::cmp_precedence`] for OLM's comparison.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Version(semver::Version);

/// Error returned when a version string cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid version {input:?}: {reason}")]
pub struct VersionError {
    /// The text that failed to parse.
    pub input: String,
    /// Why it failed.
    pub reason: String,
}

impl Version {
    /// Parses a version tolerantly, like blang/semver `ParseTolerant` (see the module docs).
    pub fn parse(s: &str) -> Result<Version, VersionError> {
        let trimmed = s.trim();
        let body = trimmed
            .strip_prefix('v')
            .or_else(|| trimmed.strip_prefix('V'))
            .unwrap_or(trimmed);
        parse_tolerant_core(body)
            .map(Version)
            .map_err(|reason| VersionError {
                input: s.to_string(),
                reason,
            })
    }

    /// Builds a plain `major.minor.patch` version.
    pub fn new(major: u64, minor: u64, patch: u64) -> Version {
        Version(semver::Version::new(major, minor, patch))
    }

    /// The underlying semver value.
    pub fn semver(&self) -> &semver::Version {
        &self.0
    }

    /// Semver precedence; build metadata is ignored (blang `Compare`), so
    /// `1.0.0+a` and `1.0.0+b` compare `Equal` here.
    pub fn cmp_precedence(&self, other: &Version) -> Ordering {
        self.0.cmp_precedence(&other.0)
    }
}

/// blang `ParseTolerant` after whitespace trimming and `v` stripping: removes leading zeros
/// from the three dot-separated parts and pads a shortened version with `.0`, then parses
/// strictly. Returns a human-readable reason on failure.
pub(crate) fn parse_tolerant_core(s: &str) -> Result<semver::Version, String> {
    if s.is_empty() {
        return Err("empty version string".to_string());
    }
    let mut out = String::with_capacity(s.len() + 4);
    let mut count = 0usize;
    let mut last = "";
    for (i, part) in s.splitn(3, '.').enumerate() {
        if i > 0 {
            out.push('.');
        }
        if part.len() > 1 {
            let stripped = part.trim_start_matches('0');
            if !stripped.starts_with(|c: char| c.is_ascii_digit()) {
                out.push('0');
            }
            out.push_str(stripped);
        } else {
            out.push_str(part);
        }
        count = i + 1;
        last = part;
    }
    if count < 3 {
        if last.contains(['+', '-']) {
            return Err(
                "a shortened version cannot carry pre-release or build metadata".to_string(),
            );
        }
        for _ in count..3 {
            out.push_str(".0");
        }
    }
    semver::Version::parse(&out).map_err(|e| e.to_string())
}

impl From<semver::Version> for Version {
    fn from(v: semver::Version) -> Self {
        Version(v)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.cmp_precedence(other)
            .then_with(|| self.0.build.cmp(&other.0.build))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl FromStr for Version {
    type Err = VersionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Version::parse(s)
    }
}

/// Text formats (JSON, YAML) carry a version as its string. A binary format (the catalog
/// cache's postcard) carries its parts, `(major, minor, patch, pre-release, build)`, so a
/// warm load does not parse the text again.
impl serde::Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            return serializer.collect_str(self);
        }
        let v = &self.0;
        serde::Serialize::serialize(
            &(v.major, v.minor, v.patch, v.pre.as_str(), v.build.as_str()),
            serializer,
        )
    }
}

impl Version {
    /// The version of its binary parts (see the `Serialize` impl); the pre-release and build
    /// identifiers are checked as semver checks them.
    fn from_parts(
        major: u64,
        minor: u64,
        patch: u64,
        pre: &str,
        build: &str,
    ) -> Result<Version, String> {
        let pre = match pre {
            "" => semver::Prerelease::EMPTY,
            p => semver::Prerelease::new(p).map_err(|e| format!("pre-release {p:?}: {e}"))?,
        };
        let build = match build {
            "" => semver::BuildMetadata::EMPTY,
            b => semver::BuildMetadata::new(b).map_err(|e| format!("build {b:?}: {e}"))?,
        };
        Ok(Version(semver::Version {
            major,
            minor,
            patch,
            pre,
            build,
        }))
    }
}

impl<'de> serde::Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Version;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a semantic version string")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Version, E> {
                Version::parse(v).map_err(E::custom)
            }
        }
        if deserializer.is_human_readable() {
            return deserializer.deserialize_str(Visitor);
        }
        let (major, minor, patch, pre, build) =
            <(u64, u64, u64, Cow<'de, str>, Cow<'de, str>) as serde::Deserialize>::deserialize(
                deserializer,
            )?;
        Version::from_parts(major, minor, patch, &pre, &build).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn v(s: &str) -> Version {
        match Version::parse(s) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn tolerant_parse_table() {
        let cases: &[(&str, &str)] = &[
            ("1.2.3", "1.2.3"),
            ("v1.2.3", "1.2.3"),
            ("V1.2.3", "1.2.3"),
            ("  v1.2.3\n", "1.2.3"),
            ("1", "1.0.0"),
            ("v1", "1.0.0"),
            ("1.2", "1.2.0"),
            ("01.02.03", "1.2.3"),
            ("00.00.00", "0.0.0"),
            ("1.2.03-alpha", "1.2.3-alpha"),
            ("1.2.0-alpha", "1.2.0-alpha"),
            ("1.2.00-alpha", "1.2.0-alpha"),
            ("1.0.0-alpha.1", "1.0.0-alpha.1"),
            ("1.0.0-0.3.7", "1.0.0-0.3.7"),
            ("1.0.0-x-y.z", "1.0.0-x-y.z"),
            ("1.0.0+build.5", "1.0.0+build.5"),
            ("1.0.0+001", "1.0.0+001"),
            ("1.0.0-rc.1+build.1", "1.0.0-rc.1+build.1"),
            ("18446744073709551615.0.0", "18446744073709551615.0.0"),
        ];
        for (input, want) in cases {
            assert_eq!(v(input).to_string(), *want, "input {input:?}");
        }
    }

    #[test]
    fn tolerant_parse_errors() {
        let cases = [
            "",
            "   ",
            "v",
            "vv1.2.3",
            "1.2-alpha",
            "1-rc.1",
            "1.2+build",
            "1.2.3.4",
            "1.2.3-",
            "1.2.3+",
            "1.2.3-01",
            "1.2.3-a..b",
            "a.b.c",
            "1.2.x",
            "1.2.3 4",
            "18446744073709551616.0.0",
            ".1.2",
            "1..2",
            "-1.2.3",
            "1.2.3-alpha_beta",
            "\u{201c}1.2.3\u{201d}",
        ];
        for input in cases {
            let err = Version::parse(input).expect_err(input);
            assert_eq!(err.input, input);
            assert!(!err.reason.is_empty());
        }
    }

    #[test]
    fn error_display() {
        let err = Version::parse("foo").expect_err("foo");
        assert!(err.to_string().starts_with("invalid version \"foo\": "));
    }

    #[test]
    fn ordering_by_precedence() {
        let ordered = [
            "0.0.0-0",
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.0.1",
            "1.1.0",
            "2.0.0",
        ];
        for pair in ordered.windows(2) {
            if let [a, b] = pair {
                assert_eq!(v(a).cmp_precedence(&v(b)), Ordering::Less, "{a} < {b}");
                assert!(v(a) < v(b), "{a} < {b}");
            }
        }
    }

    #[test]
    fn build_metadata_ignored_by_precedence_but_not_by_eq() {
        let a = v("1.0.0+build.1");
        let b = v("1.0.0+build.2");
        let plain = v("1.0.0");
        assert_eq!(a.cmp_precedence(&b), Ordering::Equal);
        assert_eq!(a.cmp_precedence(&plain), Ordering::Equal);
        assert_ne!(a, b);
        assert_ne!(a.cmp(&b), Ordering::Equal);
        assert_eq!(a.cmp(&b), b.cmp(&a).reverse());
        assert_eq!(
            v("1.0.0-alpha+z").cmp_precedence(&v("1.0.0")),
            Ordering::Less
        );
    }

    #[test]
    fn new_and_accessors() {
        let x = Version::new(1, 2, 3);
        assert_eq!(x, v("1.2.3"));
        assert_eq!(x.semver(), &semver::Version::new(1, 2, 3));
        assert_eq!("v1.2".parse::<Version>(), Ok(Version::new(1, 2, 0)));
        assert_eq!(
            Version::from(semver::Version::new(4, 5, 6)).to_string(),
            "4.5.6"
        );
    }

    #[test]
    fn serde_round_trip() {
        let x = v("1.2.3-rc.1+b.7");
        let json = serde_json::to_string(&x).expect("serialize");
        assert_eq!(json, "\"1.2.3-rc.1+b.7\"");
        let back: Version = serde_json::from_str(&json).expect("deserialize");
        assert_eq!(back, x);
        let tolerant: Version = serde_json::from_str("\"v1.2\"").expect("tolerant");
        assert_eq!(tolerant, Version::new(1, 2, 0));
        assert!(serde_json::from_str::<Version>("\"nope\"").is_err());
        assert!(serde_json::from_str::<Version>("12").is_err());
    }

    #[test]
    fn huge_input_is_rejected_quickly() {
        let big = "1".repeat(1 << 20);
        assert!(Version::parse(&big).is_err());
        let big = format!("1.0.0-{}", "a.".repeat(1 << 19));
        assert!(Version::parse(&big).is_err());
    }

    fn arb_version() -> impl Strategy<Value = Version> {
        let pre = prop_oneof![
            Just(String::new()),
            Just("alpha".to_string()),
            Just("alpha.1".to_string()),
            Just("beta".to_string()),
            Just("rc.1".to_string()),
            Just("0".to_string()),
            Just("1".to_string()),
        ];
        let build = prop_oneof![
            Just(String::new()),
            Just("b1".to_string()),
            Just("001".to_string()),
            Just("1".to_string()),
        ];
        (0u64..4, 0u64..4, 0u64..4, pre, build).prop_map(|(a, b, c, pre, build)| {
            let mut s = format!("{a}.{b}.{c}");
            if !pre.is_empty() {
                s.push('-');
                s.push_str(&pre);
            }
            if !build.is_empty() {
                s.push('+');
                s.push_str(&build);
            }
            v(&s)
        })
    }

    proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC{0,40}") {
            let _ = Version::parse(&s);
        }

        #[test]
        fn display_round_trips(a in arb_version()) {
            prop_assert_eq!(v(&a.to_string()), a);
        }

        #[test]
        fn ord_consistent_with_eq(a in arb_version(), b in arb_version()) {
            prop_assert_eq!(a.cmp(&b) == Ordering::Equal, a == b);
            prop_assert_eq!(a.cmp(&b), b.cmp(&a).reverse());
            if a.cmp_precedence(&b) != Ordering::Equal {
                prop_assert_eq!(a.cmp(&b), a.cmp_precedence(&b));
            }
        }
    }

    #[test]
    fn binary_form_is_the_parts_and_text_form_the_string() {
        for text in ["1.2.3", "0.0.1-rc.1+build.7", "10.0.0+meta"] {
            let version = v(text);
            let bytes = postcard::to_allocvec(&version).unwrap();
            let back: Version = postcard::from_bytes(&bytes).unwrap();
            assert_eq!(back, version);
            assert_eq!(back.to_string(), text);
            assert_eq!(
                serde_json::to_string(&version).unwrap(),
                format!("{text:?}")
            );
        }
        let bad = postcard::to_allocvec(&(1u64, 2u64, 3u64, "not valid!", "")).unwrap();
        assert!(postcard::from_bytes::<Version>(&bad).is_err());
    }
}
