//! HTML of descriptions and excerpts, and plain text of titles and names.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

/// Tags that make content "already laid out": such content is stored as sanitized, while
/// anything else is split into paragraphs the way WordPress's `wpautop` does.
#[rustfmt::skip]
const BLOCK_TAGS: &[&str] = &[
    "p", "div", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre",
    "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "hr", "figure",
];

#[rustfmt::skip]
const ALLOWED_TAGS: &[&str] = &[
    "p", "br", "hr", "a", "strong", "em", "b", "i", "u", "s", "del", "ins", "sub", "sup",
    "small", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "code", "pre",
    "img", "span", "div", "figure", "figcaption", "table", "thead", "tbody", "tfoot", "tr",
    "th", "td", "caption",
];

/// Removed together with everything inside them: their content is code or an embedded
/// document, never text meant for the reader.
const DROPPED_WITH_CONTENT: &[&str] = &[
    "script", "style", "iframe", "object", "embed", "noscript", "template", "svg", "math",
];

static SANITIZER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let attributes: HashMap<&str, HashSet<&str>> = HashMap::from([
        ("a", HashSet::from(["href", "title"])),
        (
            "img",
            HashSet::from(["src", "alt", "title", "width", "height"]),
        ),
        ("td", HashSet::from(["colspan", "rowspan"])),
        ("th", HashSet::from(["colspan", "rowspan"])),
    ]);
    let mut builder = ammonia::Builder::empty();
    builder
        .tags(ALLOWED_TAGS.iter().copied().collect())
        .clean_content_tags(DROPPED_WITH_CONTENT.iter().copied().collect())
        .tag_attributes(attributes)
        // Only schemes that cannot run code; `javascript:` and `data:` links lose the URL.
        .url_schemes(HashSet::from(["http", "https", "mailto", "tel"]))
        .url_relative(ammonia::UrlRelative::PassThrough)
        .link_rel(Some("noopener noreferrer"))
        .strip_comments(true);
    builder
});

/// Allow-list sanitizing of a description or excerpt, then paragraphs for content that
/// has none: `"Excerpt 1"` becomes `"<p>Excerpt 1</p>"`, blank lines separate paragraphs
/// and single newlines become `<br />`. Empty or whitespace-only input gives `""`.
pub fn sanitize_html(input: &str) -> String {
    let input = input.replace("\r\n", "\n").replace('\r', "\n");
    if input.trim().is_empty() {
        return String::new();
    }
    let clean = SANITIZER.clean(&input).to_string();
    let clean = clean.trim();
    if clean.is_empty() || has_block_markup(clean) {
        return clean.to_string();
    }
    let paragraphs: Vec<String> = split_paragraphs(clean)
        .iter()
        .map(|p| format!("<p>{}</p>", p.trim().replace('\n', "<br>\n")))
        .collect();
    // A paragraph break may have fallen inside an inline element ("<b>a\n\nb</b>"); a
    // second pass rebalances the tags. Joined without whitespace, as whitespace between
    // the paragraphs would be re-wrapped in the open inline element. The input had no
    // block markup, so every `</p><p>` is one of ours.
    let balanced = SANITIZER.clean(&paragraphs.concat()).to_string();
    balanced
        .trim()
        .replace("</p><p>", "</p>\n<p>")
        .replace("<br>", "<br />")
}

fn split_paragraphs(text: &str) -> Vec<String> {
    let mut paragraphs = Vec::new();
    let mut lines: Vec<&str> = Vec::new();
    for line in text.split('\n') {
        if !line.trim().is_empty() {
            lines.push(line.trim_end());
        } else if !lines.is_empty() {
            paragraphs.push(lines.join("\n"));
            lines.clear();
        }
    }
    if !lines.is_empty() {
        paragraphs.push(lines.join("\n"));
    }
    paragraphs
}

/// Looks for an opening block tag in sanitizer output, where tag names are lower case.
fn has_block_markup(html: &str) -> bool {
    html.split('<').skip(1).any(|rest| {
        let name_end = rest
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        BLOCK_TAGS.contains(&&rest[..name_end])
    })
}

/// Plain text of a title or name: every tag goes (with the content of `<script>` and
/// `<style>`), entities stay as written, and the result is trimmed.
pub fn strip_tags(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut rest = input;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        let after = &rest[lt + 1..];
        // As in PHP, "<" not followed by a tag start is text: "1 < 2" stays.
        let starts_tag = after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '/' | '!' | '?'));
        if !starts_tag {
            out.push('<');
            rest = after;
            continue;
        }
        if let Some(comment) = after.strip_prefix("!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        let tag_len = tag_end(after);
        let tag = &after[..tag_len];
        rest = after.get(tag_len + 1..).unwrap_or("");
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if name == "script" || name == "style" {
            rest = skip_past_closing(rest, &name);
        }
    }
    out.push_str(rest);
    out.trim().to_string()
}

/// Index of the `>` closing a tag, skipping quoted attribute values; the length when the
/// tag never closes (an unterminated tag swallows the rest, as in PHP).
fn tag_end(tag: &str) -> usize {
    let mut quote = None;
    for (i, c) in tag.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => return i,
            _ => {}
        }
    }
    tag.len()
}

fn skip_past_closing<'a>(text: &'a str, name: &str) -> &'a str {
    let closing = format!("</{name}");
    let lower = text.to_ascii_lowercase();
    match lower.find(&closing) {
        Some(at) => {
            let after = &text[at..];
            after.find('>').map_or("", |gt| &after[gt + 1..])
        }
        None => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_description_round_trips() {
        let s = "<p>Description of event 1</p>";
        assert_eq!(sanitize_html(s), s);
    }

    #[test]
    fn plain_text_is_wrapped_in_a_paragraph() {
        assert_eq!(sanitize_html("Excerpt 1"), "<p>Excerpt 1</p>");
        assert_eq!(sanitize_html("  Excerpt 1 \n"), "<p>Excerpt 1</p>");
    }

    #[test]
    fn empty_input_gives_empty_output() {
        assert_eq!(sanitize_html(""), "");
        assert_eq!(sanitize_html(" \n\t "), "");
        assert_eq!(sanitize_html("<script>x</script>"), "");
    }

    #[test]
    fn blank_lines_make_paragraphs() {
        assert_eq!(sanitize_html("One\n\nTwo"), "<p>One</p>\n<p>Two</p>");
        assert_eq!(
            sanitize_html("One\r\n\r\n  \r\n\r\nTwo\n\n\nThree"),
            "<p>One</p>\n<p>Two</p>\n<p>Three</p>"
        );
    }

    #[test]
    fn single_newlines_become_line_breaks() {
        assert_eq!(
            sanitize_html("Line 1\nLine 2"),
            "<p>Line 1<br />\nLine 2</p>"
        );
    }

    #[test]
    fn inline_markup_is_wrapped_too() {
        assert_eq!(
            sanitize_html("Hello <strong>world</strong>"),
            "<p>Hello <strong>world</strong></p>"
        );
        assert_eq!(sanitize_html("a<br>b"), "<p>a<br />b</p>");
    }

    #[test]
    fn paragraph_break_inside_inline_element_stays_well_formed() {
        let out = sanitize_html("<b>one\n\ntwo</b>");
        assert!(out.starts_with("<p><b>one</b></p>"), "{out}");
        assert_eq!(
            out.matches("<b>").count(),
            out.matches("</b>").count(),
            "{out}"
        );
    }

    #[test]
    fn block_content_is_kept_as_is() {
        let s = "<h2>Title</h2>\n<ul><li>a</li><li>b</li></ul>";
        assert_eq!(sanitize_html(s), s);
        assert_eq!(sanitize_html("<div>x</div>"), "<div>x</div>");
    }

    #[test]
    fn scripts_are_removed_with_their_content() {
        assert_eq!(sanitize_html("<script>alert(1)</script>hi"), "<p>hi</p>");
        assert_eq!(sanitize_html("<style>p{}</style><p>x</p>"), "<p>x</p>");
        assert_eq!(
            sanitize_html("<iframe src=\"https://e.com\">f</iframe>ok"),
            "<p>ok</p>"
        );
    }

    #[test]
    fn javascript_urls_and_event_handlers_are_removed() {
        assert_eq!(
            sanitize_html(r#"<a href="javascript:alert(1)" onclick="x">x</a>"#),
            r#"<p><a rel="noopener noreferrer">x</a></p>"#
        );
        assert_eq!(
            sanitize_html(r#"<p><a href="JaVaScRiPt:alert(1)">x</a></p>"#),
            r#"<p><a rel="noopener noreferrer">x</a></p>"#
        );
        let img = sanitize_html(r#"<p><img src="x.png" onerror="alert(1)" alt="a"></p>"#);
        assert!(!img.contains("onerror"), "{img}");
        assert!(img.contains(r#"alt="a""#), "{img}");
    }

    #[test]
    fn safe_links_keep_href_and_title_and_gain_rel() {
        let out = sanitize_html(r#"<a href="https://example.com/" title="T" class="c">x</a>"#);
        assert_eq!(
            out,
            r#"<p><a href="https://example.com/" title="T" rel="noopener noreferrer">x</a></p>"#
        );
        assert!(sanitize_html(r#"<a href="/event/x/">x</a>"#).contains(r#"href="/event/x/""#));
    }

    #[test]
    fn images_keep_their_allowed_attributes() {
        let s =
            r#"<p><img src="https://e.com/a.png" alt="A" width="10" height="20" style="x"></p>"#;
        assert_eq!(
            sanitize_html(s),
            r#"<p><img src="https://e.com/a.png" alt="A" width="10" height="20"></p>"#
        );
    }

    #[test]
    fn unknown_tags_are_unwrapped_and_comments_dropped() {
        assert_eq!(sanitize_html("<blink>hi</blink><!-- c -->"), "<p>hi</p>");
    }

    #[test]
    fn tables_are_kept() {
        let s = "<table><tbody><tr><td colspan=\"2\">x</td></tr></tbody></table>";
        assert_eq!(sanitize_html(s), s);
    }

    #[test]
    fn text_is_escaped_not_decoded() {
        assert_eq!(sanitize_html("a < b & c"), "<p>a &lt; b &amp; c</p>");
    }

    #[test]
    fn strip_tags_removes_markup_and_trims() {
        assert_eq!(strip_tags("  <b>Event</b> <i>01</i> "), "Event 01");
        assert_eq!(strip_tags("<a href=\"x>y\">link</a>"), "link");
        assert_eq!(strip_tags("Title<br/>"), "Title");
    }

    #[test]
    fn strip_tags_drops_script_and_style_content() {
        assert_eq!(strip_tags("<script>alert(1)</script>Hi"), "Hi");
        assert_eq!(strip_tags("A<STYLE>p{}</STYLE>B"), "AB");
        assert_eq!(strip_tags("A<script>never closed"), "A");
    }

    #[test]
    fn strip_tags_leaves_text_and_entities_alone() {
        assert_eq!(
            strip_tags("Rock & Roll &amp; more"),
            "Rock & Roll &amp; more"
        );
        assert_eq!(strip_tags("1 < 2 > 0"), "1 < 2 > 0");
        assert_eq!(strip_tags("a <"), "a <");
        assert_eq!(strip_tags("Café — “quotes”"), "Café — “quotes”");
    }

    #[test]
    fn strip_tags_handles_comments_and_unterminated_tags() {
        assert_eq!(strip_tags("a<!-- <b>x</b> -->b"), "ab");
        assert_eq!(strip_tags("a<!-- open"), "a");
        assert_eq!(strip_tags("a<b"), "a");
    }
}
