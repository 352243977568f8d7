//! The words of an event's text as SQLite's index of whole words holds them
//! (migration 51), and which search words it can find exactly.
//!
//! A search matches its word anywhere in the lower-cased text, inside a word as
//! well. The text is cut at every ASCII character that is neither a letter nor a
//! digit (spaces, punctuation, markup), and nowhere else: a search word made of
//! ASCII letters and digits alone holds none of those characters, so wherever it
//! occurs in the text, it occurs inside one of the pieces. The events holding it
//! are those holding a piece that holds it, which a short list of the calendar's
//! pieces (its vocabulary) names.

use std::collections::BTreeSet;

/// The pieces of the lower-cased text of `fields`, each once, in order.
pub fn text_tokens<'a>(fields: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    let mut tokens = BTreeSet::new();
    for field in fields {
        let lowered = field.to_lowercase();
        for token in lowered.split(is_separator).filter(|t| !t.is_empty()) {
            if !tokens.contains(token) {
                tokens.insert(token.to_string());
            }
        }
    }
    tokens
}

/// The pieces of `fields` as one text of them separated by spaces, as the index's
/// `ascii` tokenizer reads them back: it cuts at the same characters, and folds
/// only ASCII letters, which the pieces hold lower-cased already.
pub fn tokens_text<'a>(fields: impl IntoIterator<Item = &'a str>) -> String {
    let tokens: Vec<String> = text_tokens(fields).into_iter().collect();
    tokens.join(" ")
}

/// Whether the index of whole words finds a (lower-cased) search word exactly:
/// ASCII letters and digits only, and long enough for the trigram index of the
/// vocabulary to find the pieces holding it.
pub fn found_by_tokens(word: &str) -> bool {
    word.len() >= 3
        && word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

fn is_separator(c: char) -> bool {
    c.is_ascii() && !c.is_ascii_alphanumeric()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_cut_at_ascii_punctuation_only() {
        let tokens = text_tokens(["Jazz-Night <p>Straße&amp;Café</p>", "ÉTÉ_2027 jazz"]);
        let expected = ["2027", "amp", "café", "jazz", "night", "p", "straße", "été"];
        assert_eq!(tokens.into_iter().collect::<Vec<_>>(), expected);
        assert_eq!(tokens_text(["b a", "", "a"]), "a b");
    }

    #[test]
    fn only_ascii_letters_and_digits_are_found_by_tokens() {
        for word in ["jazz", "2027", "a1b"] {
            assert!(found_by_tokens(word), "{word}");
        }
        for word in ["ja", "café", "rock-n-roll", "12:30", "jazz ", "Jazz", ""] {
            assert!(!found_by_tokens(word), "{word}");
        }
    }

    /// The property the index rests on: an ASCII word is in the lower-cased text
    /// exactly when one of the text's pieces holds it.
    #[test]
    fn a_word_is_in_the_text_when_a_piece_holds_it() {
        let texts = [
            "Carnival! CARNIVALS, pre-carnival; xcarnivalx",
            "car nival <b>carni</b>val",
            "Fête Ünïcødé carnivalé ÉCARNIVAL",
            "\u{212A}elvin and the K\u{0130}NG",
            "ΣΟΦΟΣ jazz\tnight\nsalsa",
            "",
        ];
        let words = [
            "carnival", "carni", "val", "nival", "kelvin", "king", "jazz", "night", "salsa",
            "azzn", "car",
        ];
        for text in texts {
            let lowered = text.to_lowercase();
            let tokens = text_tokens([text]);
            for word in words {
                assert!(found_by_tokens(word));
                assert_eq!(
                    tokens.iter().any(|t| t.contains(word)),
                    lowered.contains(word),
                    "{word:?} in {text:?}"
                );
            }
        }
    }
}
