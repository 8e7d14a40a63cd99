//! Content digests (`sha256:<64 hex>`, `sha512:<128 hex>`), as OCI descriptors name every
//! manifest and blob, and the hashing that verifies them.

use std::fmt;
use std::str::FromStr;

/// A digest algorithm OCI registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algorithm {
    /// SHA-256 (what registries use).
    Sha256,
    /// SHA-512.
    Sha512,
}

impl Algorithm {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Algorithm::Sha256 => "sha256",
            Algorithm::Sha512 => "sha512",
        }
    }

    fn hex_len(self) -> usize {
        match self {
            Algorithm::Sha256 => 64,
            Algorithm::Sha512 => 128,
        }
    }
}

/// A content digest: algorithm and lower-case hex.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest {
    algorithm: Algorithm,
    hex: String,
}

impl Digest {
    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The hex part.
    pub fn hex(&self) -> &str {
        &self.hex
    }

    /// The digest of `bytes` with `algorithm`.
    #[cfg(feature = "registry")]
    pub fn of(algorithm: Algorithm, bytes: &[u8]) -> Digest {
        let mut h = Hasher::new(algorithm);
        h.update(bytes);
        h.finish()
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.algorithm.name(), self.hex)
    }
}

impl FromStr for Digest {
    type Err = String;

    fn from_str(s: &str) -> Result<Digest, String> {
        let (algo, hex) = s
            .split_once(':')
            .ok_or_else(|| format!("{s:?} is not ALGORITHM:HEX"))?;
        let algorithm = match algo {
            "sha256" => Algorithm::Sha256,
            "sha512" => Algorithm::Sha512,
            other => return Err(format!("algorithm {other:?} is not sha256 or sha512")),
        };
        let lower_hex = hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if hex.len() != algorithm.hex_len() || !lower_hex {
            return Err(format!(
                "{s:?}: a {} digest is {} lower-case hex digits",
                algorithm.name(),
                algorithm.hex_len()
            ));
        }
        Ok(Digest {
            algorithm,
            hex: hex.to_string(),
        })
    }
}

impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Digest, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Hashes bytes as they stream by, for one algorithm.
#[cfg(feature = "registry")]
pub struct Hasher(HasherState);

#[cfg(feature = "registry")]
enum HasherState {
    Sha256(sha2::Sha256),
    Sha512(sha2::Sha512),
}

#[cfg(feature = "registry")]
impl Hasher {
    /// A hasher for `algorithm`.
    pub fn new(algorithm: Algorithm) -> Hasher {
        use sha2::Digest as _;
        Hasher(match algorithm {
            Algorithm::Sha256 => HasherState::Sha256(sha2::Sha256::new()),
            Algorithm::Sha512 => HasherState::Sha512(sha2::Sha512::new()),
        })
    }

    /// Adds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        use sha2::Digest as _;
        match &mut self.0 {
            HasherState::Sha256(h) => h.update(bytes),
            HasherState::Sha512(h) => h.update(bytes),
        }
    }

    /// The digest of everything added.
    pub fn finish(self) -> Digest {
        use sha2::Digest as _;
        let (algorithm, bytes) = match self.0 {
            HasherState::Sha256(h) => (Algorithm::Sha256, h.finalize().to_vec()),
            HasherState::Sha512(h) => (Algorithm::Sha512, h.finalize().to_vec()),
        };
        let mut hex = String::with_capacity(bytes.len() * 2);
        for b in bytes {
            hex.push_str(&format!("{b:02x}"));
        }
        Digest { algorithm, hex }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_parse_strictly() {
        let hex = "a".repeat(64);
        let d: Digest = format!("sha256:{hex}").parse().unwrap();
        assert_eq!(d.to_string(), format!("sha256:{hex}"));
        assert!(
            format!("sha256:{}", "A".repeat(64))
                .parse::<Digest>()
                .is_err()
        );
        assert!("sha256:abc".parse::<Digest>().is_err());
        assert!(format!("md5:{hex}").parse::<Digest>().is_err());
        assert!(hex.parse::<Digest>().is_err());
        assert!(
            format!("sha512:{}", "0".repeat(128))
                .parse::<Digest>()
                .is_ok()
        );
    }

    #[cfg(feature = "registry")]
    #[test]
    fn hashes_match_known_values() {
        assert_eq!(
            Digest::of(Algorithm::Sha256, b"").to_string(),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let mut h = Hasher::new(Algorithm::Sha256);
        h.update(b"ab");
        h.update(b"c");
        assert_eq!(
            h.finish().hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
