//! HTML as plain text, for places that cannot show markup (iCalendar's DESCRIPTION):
//! paragraphs and line breaks kept, list items as bullets, links followed by their
//! address, entities decoded. Built on html5ever's tokenizer, without a tree: the
//! HTML here is already sanitized (`html::sanitize`), so a token stream is enough,
//! and it is an order of magnitude cheaper than laying out a document.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

/// Elements that start and end a block of their own.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "pre",
    "table",
    "figure",
    "figcaption",
    "hr",
    "caption",
    "address",
    "section",
    "article",
    "header",
    "footer",
];
/// Elements whose content is never text for the reader.
const SKIPPED: &[&str] = &[
    "script", "style", "template", "noscript", "iframe", "object", "svg", "math",
];

#[derive(Default)]
struct Text {
    out: String,
    /// Line breaks owed before the next text: 1 for a line, 2 for a paragraph.
    pending_breaks: usize,
    /// Whitespace seen since the last text.
    pending_space: bool,
    /// Inside `<pre>`: whitespace is kept as it is.
    preformatted: usize,
    /// Inside an element whose content is dropped.
    skipping: usize,
    /// Open lists: `None` for `<ul>`, the next number for `<ol>`.
    lists: Vec<Option<u32>>,
    /// The address of the open link, and where its text starts.
    link: Option<(String, usize)>,
}

impl Text {
    fn ask_break(&mut self, n: usize) {
        if !self.out.is_empty() {
            self.pending_breaks = self.pending_breaks.max(n);
        }
        self.pending_space = false;
    }

    fn push_text(&mut self, s: &str) {
        if self.preformatted > 0 {
            if !s.is_empty() {
                self.flush();
                self.out.push_str(s);
            }
            return;
        }
        // Words as they are, each run of whitespace as one space.
        for word in s.split(char::is_whitespace) {
            if word.is_empty() {
                self.pending_space = true;
                continue;
            }
            self.flush();
            self.out.push_str(word);
            self.pending_space = true;
        }
        self.pending_space = s.ends_with(char::is_whitespace);
    }

    /// Writes what is owed before the next visible character.
    fn flush(&mut self) {
        if self.pending_breaks > 0 {
            for _ in 0..self.pending_breaks {
                self.out.push('\n');
            }
            self.pending_breaks = 0;
            self.pending_space = false;
        } else if self.pending_space {
            if !self.out.is_empty() && !self.out.ends_with(['\n', ' ']) {
                self.out.push(' ');
            }
            self.pending_space = false;
        }
    }

    fn tag(&mut self, tag: &Tag) {
        let name: &str = &tag.name;
        let start = tag.kind == TagKind::StartTag;
        if SKIPPED.contains(&name) {
            if start && !tag.self_closing {
                self.skipping += 1;
            } else if !start {
                self.skipping = self.skipping.saturating_sub(1);
            }
            return;
        }
        if self.skipping > 0 {
            return;
        }
        match (name, start) {
            ("br", _) => {
                self.flush();
                self.out.push('\n');
                self.pending_space = false;
            }
            ("pre", true) => {
                self.ask_break(2);
                self.preformatted += 1;
            }
            ("pre", false) => {
                self.preformatted = self.preformatted.saturating_sub(1);
                self.ask_break(2);
            }
            ("ul", true) => {
                self.ask_break(if self.lists.is_empty() { 2 } else { 1 });
                self.lists.push(None);
            }
            ("ol", true) => {
                self.ask_break(if self.lists.is_empty() { 2 } else { 1 });
                self.lists.push(Some(1));
            }
            ("ul" | "ol", false) => {
                self.lists.pop();
                self.ask_break(if self.lists.is_empty() { 2 } else { 1 });
            }
            ("li", true) => self.list_item(),
            ("li" | "tr", false) => self.ask_break(1),
            ("td" | "th", false) => self.pending_space = true,
            ("a", true) => {
                let href = tag.attrs.iter().find(|a| &*a.name.local == "href");
                self.link = href.map(|a| (a.value.to_string(), self.out.len()));
            }
            ("a", false) => self.link_end(),
            ("img", _) => self.image(tag),
            (n, _) if BLOCKS.contains(&n) => self.ask_break(2),
            _ => {}
        }
    }

    /// A list item's bullet or number, indented by its depth.
    fn list_item(&mut self) {
        self.ask_break(1);
        self.flush();
        let depth = self.lists.len().saturating_sub(1);
        self.out.push_str(&"  ".repeat(depth));
        match self.lists.last_mut() {
            Some(Some(n)) => {
                self.out.push_str(&format!("{n}. "));
                *n += 1;
            }
            _ => self.out.push_str("- "),
        }
        // The bullet is written: what follows is the item's text.
        self.pending_breaks = 0;
    }

    /// A link's address after its text, unless the text shows it.
    fn link_end(&mut self) {
        if let Some((href, from)) = self.link.take() {
            let text = self.out.get(from..).unwrap_or("").trim();
            let shown = href.trim_start_matches("mailto:");
            if !href.is_empty() && text != shown && !href.starts_with('#') {
                self.out.push_str(&format!(" ({href})"));
            }
        }
    }

    /// An image's alternative text, if it has one.
    fn image(&mut self, tag: &Tag) {
        let alt = tag.attrs.iter().find(|a| &*a.name.local == "alt");
        if let Some(alt) = alt.filter(|a| !a.value.trim().is_empty()) {
            self.flush();
            self.out.push_str(&format!("[{}]", alt.value.trim()));
        }
    }
}

struct Sink(RefCell<Text>);

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut text = self.0.borrow_mut();
        match token {
            Token::TagToken(tag) => text.tag(&tag),
            Token::CharacterTokens(s) if text.skipping == 0 => text.push_text(&s),
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

/// The text of an HTML fragment.
pub fn plain_text(html: &str) -> String {
    let tokenizer = Tokenizer::new(
        Sink(RefCell::new(Text::default())),
        TokenizerOpts::default(),
    );
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let text = std::mem::take(&mut *tokenizer.sink.0.borrow_mut());
    text.out.trim().to_string()
}

/// A title as its reader sees it. Titles may hold HTML entities, as WordPress
/// keeps them (`New Year&#8217;s Day`, which The Events Calendar's API hands out,
/// and `import` keeps): shown as text, they are decoded once.
pub fn title_text(title: &str) -> String {
    if title.contains('&') {
        plain_text(title)
    } else {
        title.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::{plain_text, title_text};

    #[test]
    fn titles_show_their_entities_decoded() {
        assert_eq!(title_text("New Year&#8217;s Day"), "New Year\u{2019}s Day");
        assert_eq!(title_text("Rock &amp; Roll"), "Rock & Roll");
        assert_eq!(title_text("Rock & Roll"), "Rock & Roll");
        assert_eq!(title_text("A < B"), "A < B");
    }

    #[test]
    fn blocks_lists_and_links_become_text() {
        let html = "<p>One &amp; two</p><p>See <a href=\"https://x.test/\">this</a></p>\
            <ul><li>a</li><li>b <b>bold</b></li></ul><ol><li>x</li><li>y</li></ol>after<br>line";
        assert_eq!(
            plain_text(html),
            "One & two\n\nSee this (https://x.test/)\n\n- a\n- b bold\n\n1. x\n2. y\n\nafter\nline"
        );
    }

    #[test]
    fn whitespace_collapses_except_in_pre() {
        assert_eq!(
            plain_text("plain   text\nwith  spaces"),
            "plain text with spaces"
        );
        assert_eq!(plain_text("<pre>a  b\n  c</pre>x"), "a  b\n  c\n\nx");
    }

    #[test]
    fn a_link_that_shows_its_address_is_not_repeated() {
        let html =
            "<a href=\"https://x.test/\">https://x.test/</a> <a href=\"mailto:a@b.c\">a@b.c</a>";
        assert_eq!(plain_text(html), "https://x.test/ a@b.c");
    }

    #[test]
    fn scripts_and_images() {
        assert_eq!(
            plain_text("a<script>alert(1)</script>b<img alt=\"map\">"),
            "ab[map]"
        );
    }
}
