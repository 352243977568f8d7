//! Slugs: lower-case, ASCII-folded, hyphenated, as WordPress's `sanitize_title` makes them.

use std::collections::HashSet;

/// Turns a title into a slug. Returns an empty string when nothing usable remains.
pub fn slugify(title: &str) -> String {
    let ascii = deunicode::deunicode(&without_entities(title)).to_lowercase();
    let mut out = String::with_capacity(ascii.len());
    for ch in ascii.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' {
            out.push(ch);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    // Slugs live in URLs and unique indexes; WordPress caps post names at 200 bytes.
    out.truncate(200);
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// `text` without its HTML entities (`&amp;`, `&#8217;`), as WordPress makes
/// slugs: `New Year&#8217;s Day` is `new-years-day`, not `new-year-8217-s-day`.
fn without_entities(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('&') {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let entity = tail[1..]
            .find(';')
            .filter(|&end| end > 0 && end <= 10)
            .filter(|&end| {
                tail[1..=end]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'#')
            });
        match entity {
            Some(end) => rest = &tail[end + 2..],
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out.into()
}

/// The first of `base`, `base-2`, `base-3`, … that `taken` does not contain.
/// Linear in `taken`: popular titles have families of thousands of slugs.
pub fn unique(base: &str, taken: &[String]) -> String {
    let taken: HashSet<&str> = taken.iter().map(String::as_str).collect();
    unique_in(base, |s| taken.contains(s))
}

/// [`unique`] for a caller that keeps the taken slugs itself (several new posts
/// choosing slugs in turn): `is_taken` says whether a slug is in use.
pub fn unique_in(base: &str, is_taken: impl Fn(&str) -> bool) -> String {
    if !is_taken(base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|candidate| !is_taken(candidate))
        .expect("an unbounded range always yields a free suffix")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_html_entities_as_wordpress_does() {
        assert_eq!(slugify("New Year&#8217;s Day"), "new-years-day");
        assert_eq!(slugify("Rock &amp; Roll"), "rock-roll");
        assert_eq!(slugify("Rock & Roll; live"), "rock-roll-live");
        assert_eq!(slugify("AT&T"), "at-t");
    }

    #[test]
    fn folds_accents_and_punctuation() {
        assert_eq!(slugify("Café  Concert: Été!"), "cafe-concert-ete");
        assert_eq!(slugify("  --Hello--World-- "), "hello-world");
        assert_eq!(slugify("!!!"), "");
    }

    #[test]
    fn unique_appends_the_first_free_number() {
        let taken = vec!["a".to_string(), "a-2".to_string()];
        assert_eq!(unique("a", &taken), "a-3");
        assert_eq!(unique("b", &taken), "b");
    }
}
