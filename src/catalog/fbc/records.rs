//! A catalog file's records from its bytes: JSON or YAML documents parsed and converted,
//! with heavy property values dropped, kept or streamed as asked.

use super::convert::Records;
use super::docs::Kind;
use super::heavy::Heavy;
use super::parse::{FileCtx, Format, format_of_bytes, parse_json};
use super::yaml::parse_yaml;
use crate::catalog::error::LoadError;

/// A file's records from its bytes (JSON or YAML, by `format` or, when None, by its first
/// character), its heavy property values handled as `heavy` says.
pub(crate) fn parse_bytes(
    file: &str,
    bytes: &[u8],
    format: Option<Format>,
    heavy: Heavy<'_>,
) -> Result<Records, LoadError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let ctx = FileCtx { file };
    let mut recs = Records::default();
    match (format_of_bytes(format, bytes), heavy) {
        (Format::Json, mut heavy) => {
            parse_json(&ctx, bytes, &mut |o, d| recs.add(o, d, &mut heavy))?;
        }
        (Format::Yaml, Heavy::Keep) => {
            parse_yaml::<true>(&ctx, bytes, &mut |o, d| recs.add(o, d, &mut Heavy::Keep))?;
        }
        (Format::Yaml, Heavy::KeepObjects) => {
            parse_yaml::<true>(&ctx, bytes, &mut |o, d| {
                recs.add(o, d, &mut Heavy::KeepObjects)
            })?;
        }
        (Format::Yaml, Heavy::Stream(sink)) => {
            parse_yaml::<true>(&ctx, bytes, &mut |o, d| recs.add(o, d, &mut Heavy::Keep))?;
            // YAML values are trees until the document is whole: streamed once it is.
            for b in &mut recs.bundles {
                let document = b.origin.document;
                let mut position = 0;
                b.properties.retain(|p| {
                    position += 1;
                    if Kind::of(&p.kind) != Kind::Heavy {
                        return true;
                    }
                    sink.value(document, position - 1, &p.kind, p.value.get());
                    false
                });
            }
        }
        (Format::Yaml, Heavy::Drop) => {
            parse_yaml::<false>(&ctx, bytes, &mut |o, d| recs.add(o, d, &mut Heavy::Drop))?;
        }
    }
    recs.finish_file();
    Ok(recs)
}
