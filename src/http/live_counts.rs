//! Term counts in cached answers, filled in when an answer is served.
//!
//! Every event shows its categories and tags with their `count`, so a new event in
//! a busy category would change the answer about every other event of that
//! category, and a cache that kept them whole would have to drop them all. An
//! answer computed for the cache writes each term's count as a mark instead
//! ([`TermCount`]); the cache keeps the text around the marks ([`Spliced`]) and
//! the counts apart, and a write that moves a count updates that count only.
//!
//! A mark is a JSON string holding a per-process random key, the term and the count
//! as computed: no text a client writes can forge one, and every mark is replaced
//! before an answer leaves the server.

use std::sync::OnceLock;

use axum::body::Bytes;
use serde::{Serialize, Serializer};

tokio::task_local! {
    /// Set while an answer the cache may keep is computed.
    static MARKING: ();
}

/// Computes `answer` with its term counts written as marks.
pub async fn marking<F: Future>(answer: F) -> F::Output {
    MARKING.scope((), answer).await
}

/// The start of every mark, as it appears in JSON text: the control character
/// U+0001 (escaped by every JSON writer) and the process's key.
fn prefix() -> &'static [u8] {
    static PREFIX: OnceLock<Vec<u8>> = OnceLock::new();
    PREFIX.get_or_init(|| format!("\"\\u0001{:032x}:", rand::random::<u128>()).into_bytes())
}

/// A term's count, as a view shows it.
#[derive(Clone, Copy, Debug)]
pub struct TermCount {
    pub term: i64,
    pub count: i64,
}

impl Serialize for TermCount {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if MARKING.try_with(|_| ()).is_err() {
            return s.serialize_i64(self.count);
        }
        // The prefix holds the quote and escape as JSON writes them; the string holds
        // the characters themselves.
        let key = std::str::from_utf8(&prefix()[7..]).unwrap_or_default();
        s.serialize_str(&format!("\u{1}{key}{}:{}\u{1}", self.term, self.count))
    }
}

/// An answer's text, its marks replaced by the counts it was computed with, and
/// where each count is: the text is sent as is while the counts hold.
#[derive(Debug)]
pub struct Spliced {
    text: Bytes,
    /// The counts in `text`, in order.
    holes: Vec<Hole>,
}

#[derive(Clone, Debug)]
struct Hole {
    /// Where its digits start in the text, and how many there are.
    at: usize,
    len: usize,
    term: i64,
    count: i64,
}

impl Spliced {
    /// Fills the marks of `body` (which has none when none was written). The text
    /// is kept at its exact size, as the response cache counts it: a body written
    /// into a growing buffer (a page's template, a JSON writer) keeps that buffer's
    /// spare capacity, up to as much again, for as long as the cache keeps it.
    pub fn new(body: Bytes) -> Spliced {
        let finder = memchr::memmem::Finder::new(prefix());
        if finder.find(&body).is_none() {
            return Spliced {
                text: Bytes::copy_from_slice(&body),
                holes: Vec::new(),
            };
        }
        let mut text = Vec::with_capacity(body.len());
        let mut holes = Vec::new();
        let mut rest = &body[..];
        let mut digits = itoa::Buffer::new();
        while let Some(at) = finder.find(rest) {
            text.extend_from_slice(&rest[..at]);
            let after = &rest[at + prefix().len()..];
            let Some((term, count, used)) = read_mark(after) else {
                // Not a mark after all: keep it as text.
                text.extend_from_slice(&rest[at..at + prefix().len()]);
                rest = after;
                continue;
            };
            let shown = digits.format(count).as_bytes();
            holes.push(Hole {
                at: text.len(),
                len: shown.len(),
                term,
                count,
            });
            text.extend_from_slice(shown);
            rest = &after[used..];
        }
        text.extend_from_slice(rest);
        Spliced {
            text: Bytes::from(text),
            holes,
        }
    }

    /// The terms whose counts it shows, with the counts it was computed with.
    pub fn counts(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.holes.iter().map(|h| (h.term, h.count))
    }

    /// Its text with the counts it was computed with.
    pub fn as_computed(&self) -> Bytes {
        self.text.clone()
    }

    /// Its text with these counts, one per place in order: the text itself when
    /// they are the counts it was computed with. (The server keeps the refilled
    /// answer itself, [`Spliced::refilled`]; the tests read its text.)
    #[cfg(test)]
    fn filled(&self, counts: &[i64]) -> Bytes {
        self.refilled(counts)
            .map_or_else(|| self.text.clone(), |now| now.text)
    }

    /// Itself as if computed with these counts, one per place in order; `None`
    /// when they are the counts it was computed with. The text is at its exact size.
    pub fn refilled(&self, counts: &[i64]) -> Option<Spliced> {
        debug_assert_eq!(counts.len(), self.holes.len(), "one count per place");
        if self
            .holes
            .iter()
            .map(|h| h.count)
            .eq(counts.iter().copied())
        {
            return None;
        }
        let mut digits = itoa::Buffer::new();
        let shown: usize = counts.iter().map(|c| digits.format(*c).len()).sum();
        let held: usize = self.holes.iter().map(|h| h.len).sum();
        let mut text = Vec::with_capacity(self.text.len() - held + shown);
        let mut holes = Vec::with_capacity(self.holes.len());
        let mut from = 0;
        for (hole, &count) in self.holes.iter().zip(counts) {
            text.extend_from_slice(&self.text[from..hole.at]);
            let count_text = digits.format(count).as_bytes();
            holes.push(Hole {
                at: text.len(),
                len: count_text.len(),
                term: hole.term,
                count,
            });
            text.extend_from_slice(count_text);
            from = hole.at + hole.len;
        }
        text.extend_from_slice(&self.text[from..]);
        Some(Spliced {
            text: Bytes::from(text),
            holes,
        })
    }

    /// Itself with the end of its text, `old`, replaced by `new` (a list's totals);
    /// `None` when its text does not end with `old` after its last count.
    pub fn with_ending(&self, old: &[u8], new: &[u8]) -> Option<Spliced> {
        let head = self.text.len().checked_sub(old.len())?;
        let counts_end = self.holes.last().map_or(0, |h| h.at + h.len);
        if self.text[head..] != *old || counts_end > head {
            return None;
        }
        let mut text = Vec::with_capacity(head + new.len());
        text.extend_from_slice(&self.text[..head]);
        text.extend_from_slice(new);
        Some(Spliced {
            text: Bytes::from(text),
            holes: self.holes.clone(),
        })
    }

    /// The size it takes in memory.
    pub fn len(&self) -> usize {
        self.text.len() + 32 * self.holes.len()
    }
}

/// `<term>:<count>\u0001"` at the start of `text`: the term, the count, and the
/// bytes they take.
fn read_mark(text: &[u8]) -> Option<(i64, i64, usize)> {
    const END: &[u8] = b"\\u0001\"";
    let number = |t: &[u8]| -> Option<(i64, usize)> {
        let len = t
            .iter()
            .take_while(|b| b.is_ascii_digit() || **b == b'-')
            .count();
        Some((std::str::from_utf8(&t[..len]).ok()?.parse().ok()?, len))
    };
    let (term, a) = number(text)?;
    let text_after = text.get(a..)?.strip_prefix(b":")?;
    let (count, b) = number(text_after)?;
    text_after
        .get(b..)?
        .starts_with(END)
        .then_some((term, count, a + 1 + b + END.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Shown {
        title: &'static str,
        count: TermCount,
        other: TermCount,
    }

    fn shown() -> Shown {
        Shown {
            title: "a \u{1} \"b\"",
            count: TermCount { term: 7, count: 12 },
            other: TermCount { term: 9, count: 0 },
        }
    }

    #[tokio::test]
    async fn marked_counts_are_filled_with_the_counts_of_the_moment() {
        let plain = serde_json::to_vec(&shown()).unwrap();
        let marked = marking(async { serde_json::to_vec(&shown()).unwrap() }).await;
        assert_ne!(plain, marked);
        let spliced = Spliced::new(Bytes::from(marked));
        assert_eq!(spliced.as_computed(), Bytes::from(plain));
        assert_eq!(spliced.counts().collect::<Vec<_>>(), [(7, 12), (9, 0)]);
        let later = spliced.filled(&[13, 1]);
        let v: serde_json::Value = serde_json::from_slice(&later).unwrap();
        assert_eq!(v["count"], 13);
        assert_eq!(v["other"], 1);
        assert_eq!(v["title"], "a \u{1} \"b\"");
    }

    #[tokio::test]
    async fn a_body_refilled_holds_its_new_counts_in_place_of_the_old() {
        let marked = marking(async { serde_json::to_vec(&shown()).unwrap() }).await;
        let spliced = Spliced::new(Bytes::from(marked));
        assert!(spliced.refilled(&[12, 0]).is_none());
        // Counts of other widths move the places after them.
        let wider = spliced.refilled(&[1234, 5]).unwrap();
        assert_eq!(wider.counts().collect::<Vec<_>>(), [(7, 1234), (9, 5)]);
        assert_eq!(wider.as_computed(), spliced.filled(&[1234, 5]));
        let narrower = wider.refilled(&[3, 67]).unwrap();
        assert_eq!(narrower.as_computed(), spliced.filled(&[3, 67]));
        assert_eq!(narrower.len(), spliced.filled(&[3, 67]).len() + 32 * 2);
        let v: serde_json::Value = serde_json::from_slice(&narrower.as_computed()).unwrap();
        assert_eq!(
            (v["count"].clone(), v["other"].clone()),
            (3.into(), 67.into())
        );
    }

    #[derive(Serialize)]
    struct Totalled {
        count: TermCount,
        other: TermCount,
        total: u64,
    }

    #[tokio::test]
    async fn an_ending_after_the_counts_is_replaced_and_the_counts_kept() {
        let totalled = Totalled {
            count: TermCount { term: 7, count: 12 },
            other: TermCount { term: 9, count: 0 },
            total: 5,
        };
        let marked = marking(async { serde_json::to_vec(&totalled).unwrap() }).await;
        let spliced = Spliced::new(Bytes::from(marked));
        assert!(
            spliced
                .with_ending(b"0,\"total\":5}", b"0,\"total\":6}")
                .is_none(),
            "the ending holds a count"
        );
        let moved = spliced
            .with_ending(b",\"total\":5}", b",\"total\":10}")
            .unwrap();
        assert_eq!(moved.counts().collect::<Vec<_>>(), [(7, 12), (9, 0)]);
        let v: serde_json::Value = serde_json::from_slice(&moved.filled(&[13, 2])).unwrap();
        assert_eq!(
            (v["count"].clone(), v["other"].clone(), v["total"].clone()),
            (13.into(), 2.into(), 10.into())
        );
        assert!(
            spliced.with_ending(b":6}", b":7}").is_none(),
            "another ending"
        );
        assert!(
            spliced.with_ending(&[b'x'; 4096], b"").is_none(),
            "longer than the text"
        );
    }

    #[test]
    fn text_without_marks_is_kept_as_is() {
        let body = Bytes::from_static(br#"{"title":"\u0001 not a mark"}"#);
        let spliced = Spliced::new(body.clone());
        assert_eq!(spliced.counts().count(), 0);
        assert_eq!(spliced.filled(&[]), body);
    }
}
