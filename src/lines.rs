//! Byte offsets → line and column (in characters), for every reader and the XHTML parser.
//!
//! A column is counted in characters from the start of its line. Counting it afresh for each
//! position made a long line quadratic (a 200,000-character paragraph with 66,000 elements took
//! a second in each of three steps), so long lines keep a mark every [`STEP`] bytes with the
//! characters before it: a position costs at most `STEP` bytes of counting.
pub struct LineIndex {
    /// The byte offset where each line starts.
    starts: Vec<usize>,
    /// In lines longer than `STEP`: (byte offset, characters from the line's start to it).
    marks: Vec<(usize, usize)>,
}

const STEP: usize = 4096;

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        let mut marks = Vec::new();
        for (i, &start) in starts.iter().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(text.len());
            if end - start <= STEP {
                continue;
            }
            let (mut next, mut chars) = (start + STEP, 0);
            for (at, _) in text[start..end].char_indices() {
                if start + at >= next {
                    marks.push((start + at, chars));
                    next = start + at + STEP;
                }
                chars += 1;
            }
        }
        LineIndex { starts, marks }
    }

    /// The 1-based line and column of `offset` in `text` (the text the index was made from);
    /// an offset inside a character counts as that character.
    pub fn line_col(&self, text: &str, offset: usize) -> (u32, u32) {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts.get(line - 1).copied().unwrap_or(0);
        let (from, before) = match self.marks.partition_point(|&(at, _)| at <= offset) {
            0 => (start, 0),
            n => match self.marks[n - 1] {
                (at, chars) if at > start => (at, chars),
                _ => (start, 0),
            },
        };
        let col = before + text.get(from..offset).map_or(0, |s| s.chars().count()) + 1;
        (
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(col).unwrap_or(u32::MAX),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_in_short_and_long_lines() {
        let long = "あa".repeat(5000);
        let text = format!("ab\nかき\n{long}\nz");
        let ix = LineIndex::new(&text);
        assert_eq!(ix.line_col(&text, 0), (1, 1));
        assert_eq!(ix.line_col(&text, 3), (2, 1));
        assert_eq!(ix.line_col(&text, 6), (2, 2));
        assert_eq!(ix.line_col(&text, 7), (2, 2), "inside a character");
        let third = 10;
        for chars in [0usize, 1, 2, 2999, 3000, 6001, 9999] {
            let offset = third + long.chars().take(chars).map(char::len_utf8).sum::<usize>();
            assert_eq!(ix.line_col(&text, offset), (3, chars as u32 + 1), "{chars}");
        }
        assert_eq!(ix.line_col(&text, text.len() - 1), (4, 1));
        assert_eq!(ix.line_col(&text, text.len() + 5), (4, 2));
    }
}
