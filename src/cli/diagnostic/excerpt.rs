//! The source lines of a diagnostic, drawn as rustc draws them:
//!
//! ```text
//!   --> tests/terminal/bad-version.yaml:22:16
//!    |
//! 21 |       packageName: foo
//! 22 |       version: 1.0.0.beta
//!    |                ^^^^^^^^^^ unexpected character '.' after patch version number
//! ```
//!
//! Columns count characters (1-based), and the carets sit under the characters they mark
//! whatever their UTF-8 length. Control characters in the source are shown escaped (see
//! [`super::super::report::escape`]), tabs as four spaces, and the carets move with them.
//! Long lines (a catalog document on one line) are cropped around the location, with `…`
//! where they were cut.

use std::ops::Range;

use super::super::report::{BLUE, escaped, needs_escape, paint};

/// Widest cropped source line shown, in characters.
pub const MAX_LINE: usize = 120;

/// The lines around a location of a file, and what to mark in them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Excerpt {
    /// The file, as named in messages.
    pub file: String,
    /// 1-based line of the location.
    pub line: usize,
    /// 1-based column (in characters) of the location.
    pub column: usize,
    /// The lines shown: 1-based number and text as displayed (cropped, escaped).
    lines: Vec<(usize, String)>,
    /// Display column (0-based, in the displayed text of the location's line) of the mark,
    /// and its width.
    mark: (usize, usize),
    /// The words after the carets.
    label: String,
}

/// One character as displayed: itself, its escape, or four spaces for a tab.
fn shown(c: char) -> String {
    if c == '\t' {
        "    ".to_string()
    } else if needs_escape(c) {
        escaped(c)
    } else {
        c.to_string()
    }
}

impl Excerpt {
    /// The excerpt of `text` (the contents of `file`) around the byte range `range`: the
    /// line of its start, with one line before and after when the line is not cropped. The
    /// mark covers the range's first line. None when the range is not in the text.
    pub fn around(file: &str, text: &str, range: Range<usize>, label: &str) -> Option<Excerpt> {
        let start = range.start.min(text.len());
        let line_start = text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
        let line_index = text.get(..line_start)?.matches('\n').count();
        let column = text.get(line_start..start)?.chars().count();
        let marked = text
            .get(start..range.end.max(start).min(text.len()))?
            .split('\n')
            .next()
            .map_or(0, |s| s.trim_end_matches('\r').chars().count());
        let all: Vec<&str> = text.split('\n').collect();
        let this = all.get(line_index)?.trim_end_matches('\r');
        // A long line keeps the mark's start in view, a third of the way in.
        let skip = if this.chars().count() > MAX_LINE {
            column.saturating_sub(MAX_LINE / 3)
        } else {
            0
        };
        let (shown_line, mark) = crop(this, skip, column, marked.max(1));
        let mut lines = Vec::new();
        if skip == 0
            && let Some(prev) = line_index.checked_sub(1).and_then(|i| all.get(i))
        {
            lines.push((line_index, crop(prev.trim_end_matches('\r'), 0, 0, 0).0));
        }
        lines.push((line_index + 1, shown_line));
        if skip == 0
            && let Some(next) = all.get(line_index + 1)
            && !next.trim().is_empty()
        {
            lines.push((line_index + 2, crop(next.trim_end_matches('\r'), 0, 0, 0).0));
        }
        Some(Excerpt {
            file: file.to_string(),
            line: line_index + 1,
            column: column + 1,
            lines,
            mark,
            label: label.to_string(),
        })
    }

    /// The drawing, one `\n`-terminated line each; coloured as rustc colours it when
    /// stderr is.
    pub fn render(&self) -> String {
        let width = self.lines.last().map_or(1, |(n, _)| n.to_string().len());
        let pad = " ".repeat(width);
        let bar = paint("|", BLUE);
        let mut out = format!(
            "{pad}{} {}:{}:{}\n",
            paint("-->", BLUE),
            super::super::report::escape(&self.file),
            self.line,
            self.column
        );
        out.push_str(&format!("{pad} {bar}\n"));
        for (n, text) in &self.lines {
            let number = paint(&format!("{n:>width$}"), BLUE);
            out.push_str(format!("{number} {bar} {text}").trim_end());
            out.push('\n');
            if *n == self.line {
                let (at, len) = self.mark;
                let carets = paint(&"^".repeat(len.max(1)), "\x1b[1;31m");
                let label = if self.label.is_empty() {
                    String::new()
                } else {
                    format!(" {}", super::super::report::escape(&self.label))
                };
                out.push_str(&format!("{pad} {bar} {}{carets}{label}\n", " ".repeat(at)));
            }
        }
        out
    }
}

/// `line` as displayed, without its first `skip` characters and cut to [`MAX_LINE`]
/// displayed characters, with `…` where it was cut; and the display column and width of the
/// `len` characters from character `column`.
fn crop(line: &str, skip: usize, column: usize, len: usize) -> (String, (usize, usize)) {
    let mut out = String::new();
    let mut width = 0;
    let mut mark = (0, 0);
    if skip > 0 {
        out.push('…');
        width = 1;
    }
    for (i, c) in line.chars().enumerate().skip(skip) {
        let s = shown(c);
        let w = s.chars().count();
        if width + w > MAX_LINE + 1 {
            out.push('…');
            break;
        }
        if i == column {
            mark.0 = width;
        }
        if i >= column && i < column + len {
            mark.1 += w;
        }
        out.push_str(&s);
        width += w;
    }
    if column >= line.chars().count() {
        mark.0 = width;
    }
    (out, mark)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(text: &str, range: Range<usize>) -> String {
        Excerpt::around("f.yaml", text, range, "here")
            .expect("excerpt")
            .render()
    }

    #[test]
    fn columns_and_carets_count_characters() {
        let text = "a: 1\nb: {\"ééé\": 1, v: bad}\nc: 3\n";
        let at = text.find("bad").expect("bad");
        let out = draw(text, at..at + 3);
        assert_eq!(
            out,
            " --> f.yaml:2:18\n  |\n1 | a: 1\n2 | b: {\"ééé\": 1, v: bad}\n  |                  ^^^ here\n3 | c: 3\n"
        );
    }

    #[test]
    fn control_characters_are_escaped_and_the_carets_follow() {
        let text = "name: \u{1b}[2J\tx: bad\n";
        let at = text.find("bad").expect("bad");
        let out = draw(text, at..at + 3);
        assert!(out.contains("1 | name: \\x1b[2J    x: bad\n"), "{out}");
        assert!(out.contains("  |                     ^^^ here\n"), "{out}");
        assert!(!out.contains('\u{1b}'));
    }

    #[test]
    fn long_lines_are_cropped_around_the_mark() {
        let line = format!("{}BAD{}", "x".repeat(500), "y".repeat(500));
        let text = format!("first\n{line}\nlast\n");
        let at = 6 + 500;
        let ex = Excerpt::around("f.json", &text, at..at + 3, "here").expect("excerpt");
        assert_eq!((ex.line, ex.column), (2, 501));
        assert_eq!(ex.lines.len(), 1, "context lines go with a cropped line");
        let (n, shown) = &ex.lines[0];
        assert_eq!(*n, 2);
        assert!(shown.chars().count() <= MAX_LINE + 2);
        let marked: String = shown.chars().skip(ex.mark.0).take(ex.mark.1).collect();
        assert_eq!(marked, "BAD");
    }
}
