//! Where manifests and blobs come from (a registry, an OCI layout), and reading them with
//! their digests verified.

use std::io::Read;

use oci_spec::image::Descriptor;

use super::digest::{Digest, Hasher};
use super::error::ImageError;

/// The manifest a reference names, as fetched.
#[derive(Debug)]
pub struct Top {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// The `Content-Type` it came with, when any.
    pub content_type: Option<String>,
    /// Its digest (verified against the reference's, when it names one).
    pub digest: Digest,
}

/// A place images are read from.
pub trait Source {
    /// The manifest the reference names (for a registry, one request).
    fn top(&mut self) -> Result<Top, ImageError>;
    /// A manifest named by a descriptor of an index, verified.
    fn manifest(&mut self, d: &Descriptor) -> Result<Vec<u8>, ImageError>;
    /// A blob's bytes as a stream; the caller verifies them ([`Verify`]).
    fn blob(&mut self, d: &Descriptor) -> Result<Box<dyn Read + '_>, ImageError>;
}

/// The digest a descriptor names.
pub fn digest_of(image: &str, d: &Descriptor) -> Result<Digest, ImageError> {
    d.digest()
        .to_string()
        .parse()
        .map_err(|e| ImageError::Manifest {
            image: image.to_string(),
            message: format!("descriptor digest {}: {e}", d.digest()),
        })
}

/// Hashes and counts what passes through.
pub struct Verify<R> {
    inner: R,
    hasher: Option<Hasher>,
    read: u64,
}

impl<R: Read> Verify<R> {
    /// Verifies `inner` against `expected`.
    pub fn new(inner: R, expected: &Digest) -> Verify<R> {
        Verify {
            inner,
            hasher: Some(Hasher::new(expected.algorithm())),
            read: 0,
        }
    }

    /// Reads what is left, then checks the digest and the size against the descriptor's.
    pub fn finish(
        mut self,
        image: &str,
        what: &str,
        expected: &Digest,
        size: u64,
    ) -> Result<(), ImageError> {
        std::io::copy(&mut self, &mut std::io::sink()).map_err(|e| ImageError::Io {
            image: image.to_string(),
            path: what.into(),
            message: e.to_string(),
        })?;
        let actual = self.hasher.take().map(Hasher::finish);
        if actual.as_ref() != Some(expected) {
            return Err(ImageError::Digest {
                image: image.to_string(),
                what: what.to_string(),
                expected: expected.to_string(),
                actual: actual.map_or_else(String::new, |d| d.to_string()),
            });
        }
        if self.read != size {
            return Err(ImageError::Digest {
                image: image.to_string(),
                what: format!("{what} (size)"),
                expected: format!("{size} bytes"),
                actual: format!("{} bytes", self.read),
            });
        }
        Ok(())
    }
}

impl<R: Read> Read for Verify<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let (Some(h), Some(bytes)) = (self.hasher.as_mut(), buf.get(..n)) {
            h.update(bytes);
        }
        self.read += n as u64;
        Ok(n)
    }
}

/// Reads a small document (a manifest, a configuration) whole, at most `limit` bytes, and
/// checks it against `expected`.
pub fn read_verified(
    image: &str,
    what: &str,
    r: impl Read,
    expected: &Digest,
    size: Option<u64>,
    limit: u64,
) -> Result<Vec<u8>, ImageError> {
    let mut bytes = Vec::new();
    r.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ImageError::Io {
            image: image.to_string(),
            path: what.into(),
            message: e.to_string(),
        })?;
    if bytes.len() as u64 > limit {
        return Err(ImageError::Manifest {
            image: image.to_string(),
            message: format!("{what} is larger than {limit} bytes"),
        });
    }
    let actual = Digest::of(expected.algorithm(), &bytes);
    if actual != *expected {
        return Err(ImageError::Digest {
            image: image.to_string(),
            what: what.to_string(),
            expected: expected.to_string(),
            actual: actual.to_string(),
        });
    }
    if let Some(size) = size
        && size != bytes.len() as u64
    {
        return Err(ImageError::Digest {
            image: image.to_string(),
            what: format!("{what} (size)"),
            expected: format!("{size} bytes"),
            actual: format!("{} bytes", bytes.len()),
        });
    }
    Ok(bytes)
}
