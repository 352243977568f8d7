//! An event's cost as The Events Calendar derives it from the free-form `cost` input.
//!
//! The input is one string or a list of strings ("20$", "$10 - $20", "Free", "12,50 €").
//! From it we get the numeric values, the currency symbol and its position, and the
//! display string (`"$23"`, `"20$"`, `"Free – 30$"`).

use serde::Serialize;

/// The reference formats symbol-less costs with the site's default symbol, which is `$`
/// out of the box (its samples show input `"5"` rendered as `"$5"` with an empty
/// `currency_symbol`).
pub const DEFAULT_CURRENCY_SYMBOL: &str = "$";

/// Range separator of the reference's English locale: an en dash between spaces.
const RANGE_SEPARATOR: &str = " – ";

const PREFIX: &str = "prefix";
const POSTFIX: &str = "postfix";

/// The currency and numeric values parsed from an event's cost (field order is the wire order).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct CostDetails {
    pub currency_symbol: String,
    /// The ISO currency code; empty, as in the reference, whose REST API never sets it.
    pub currency_code: String,
    /// `"prefix"`, `"postfix"` or `""`.
    pub currency_position: String,
    /// Numeric strings with `.` as decimal separator, ascending, without duplicates.
    pub values: Vec<String>,
}

impl CostDetails {
    pub fn empty() -> Self {
        Self::default()
    }
}

/// Derive `(cost, cost_details)` from the cost input(s). Empty inputs are ignored.
pub fn parse_cost(inputs: &[String]) -> (String, CostDetails) {
    let pieces: Vec<Piece> = inputs.iter().filter_map(|s| Piece::parse(s)).collect();

    let mut amounts: Vec<&Amount> = pieces.iter().flat_map(|p| &p.amounts).collect();
    // Stable sort, then keep the first of equal values: "20" wins over a later "20.00".
    amounts.sort_by(|a, b| a.value.total_cmp(&b.value));
    amounts.dedup_by(|later, earlier| later.value == earlier.value);

    let (symbol, position) = agreed_symbol(&pieces);
    let details = CostDetails {
        currency_symbol: symbol.clone(),
        currency_code: String::new(),
        currency_position: position.to_string(),
        values: amounts.iter().map(|a| a.normalized.clone()).collect(),
    };

    let cost = match (amounts.first(), amounts.last()) {
        (Some(min), Some(max)) => {
            let symbol = if symbol.is_empty() {
                DEFAULT_CURRENCY_SYMBOL
            } else {
                &symbol
            };
            let show = |a: &Amount| display(a, symbol, position);
            if amounts.len() == 1 {
                show(min)
            } else {
                format!("{}{RANGE_SEPARATOR}{}", show(min), show(max))
            }
        }
        // No number anywhere: the reference shows the text as given ("Donation").
        _ => pieces
            .iter()
            .find_map(|p| p.text.clone())
            .unwrap_or_default(),
    };
    (cost, details)
}

fn display(amount: &Amount, symbol: &str, position: &str) -> String {
    if amount.value == 0.0 {
        return "Free".to_string();
    }
    if position == POSTFIX {
        format!("{}{symbol}", amount.display)
    } else {
        format!("{symbol}{}", amount.display)
    }
}

/// Like the reference, a symbol (or position) that differs between inputs is dropped
/// rather than guessed. Inputs without a symbol do not vote.
fn agreed_symbol(pieces: &[Piece]) -> (String, &'static str) {
    let found: Vec<&(String, &'static str)> =
        pieces.iter().filter_map(|p| p.symbol.as_ref()).collect();
    let Some((first_symbol, first_position)) = found.first() else {
        return (String::new(), "");
    };
    if found.iter().any(|(s, _)| s != first_symbol) {
        return (String::new(), "");
    }
    let position = if found.iter().all(|(_, p)| p == first_position) {
        *first_position
    } else {
        ""
    };
    (first_symbol.clone(), position)
}

#[derive(Debug)]
struct Amount {
    value: f64,
    /// Digits with `.` as decimal separator and no grouping, as reported in `values`.
    normalized: String,
    /// The number as the user wrote it, for the display string.
    display: String,
}

/// What one input string contributes.
struct Piece {
    amounts: Vec<Amount>,
    symbol: Option<(String, &'static str)>,
    /// The input itself when it holds no number.
    text: Option<String>,
}

impl Piece {
    fn parse(input: &str) -> Option<Piece> {
        let s = input.trim();
        if s.is_empty() {
            return None;
        }
        if s.eq_ignore_ascii_case("free") {
            let zero = Amount {
                value: 0.0,
                normalized: "0".to_string(),
                display: "0".to_string(),
            };
            return Some(Piece {
                amounts: vec![zero],
                symbol: None,
                text: None,
            });
        }
        let spans = number_spans(s);
        let (Some(&(first, _)), Some(&(_, last))) = (spans.first(), spans.last()) else {
            return Some(Piece {
                amounts: Vec::new(),
                symbol: None,
                text: Some(s.to_string()),
            });
        };
        let amounts = spans.iter().map(|&(a, b)| interpret(&s[a..b])).collect();
        Some(Piece {
            amounts,
            symbol: find_symbol(&s[..first], &s[last..]),
            text: None,
        })
    }
}

/// Byte ranges of `digits([.,]digits)*` runs.
fn number_spans(s: &str) -> Vec<(usize, usize)> {
    let bytes = s.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        // A bare leading separator is a decimal point: ".5" is half.
        let bare_separator = i >= 1
            && matches!(bytes[i - 1], b'.' | b',')
            && (i == 1 || !bytes[i - 2].is_ascii_digit());
        let start = if bare_separator { i - 1 } else { i };
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        while i + 1 < bytes.len()
            && matches!(bytes[i], b'.' | b',')
            && bytes[i + 1].is_ascii_digit()
        {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
        }
        spans.push((start, i));
    }
    spans
}

/// Reads `,` and `.` as the writer most likely meant them. The reference treats either
/// as a decimal point; we also recognise thousands grouping ("1,000", "1.000,50"), since
/// costs with three decimals do not occur and "$1,000" does.
fn interpret(token: &str) -> Amount {
    let groups: Vec<&str> = token.split(['.', ',']).collect();
    let separators: Vec<char> = token.chars().filter(|c| matches!(c, '.' | ',')).collect();
    let thousands_only = match separators.as_slice() {
        [] => true,
        [_] => groups[1].len() == 3 && (1..=3).contains(&groups[0].len()) && groups[0] != "0",
        [first, rest @ ..] => {
            rest.iter().all(|c| c == first) && groups[1..].iter().all(|g| g.len() == 3)
        }
    };
    let (int_part, frac_part) = if thousands_only {
        (groups.concat(), None)
    } else {
        let (last, init) = groups
            .split_last()
            .expect("split yields at least one group");
        (init.concat(), Some(*last))
    };
    let int_part = int_part.trim_start_matches('0');
    let int_part = if int_part.is_empty() { "0" } else { int_part };
    let normalized = match frac_part {
        Some(frac) => format!("{int_part}.{frac}"),
        None => int_part.to_string(),
    };
    Amount {
        value: normalized.parse().unwrap_or(0.0),
        normalized,
        display: token.to_string(),
    }
}

/// The symbol is the word right before the first number or right after the last one:
/// "$10 - $20", "10 - 20 €", "From $10", "10$ per person".
fn find_symbol(before: &str, after: &str) -> Option<(String, &'static str)> {
    // Punctuation hugging the symbol belongs to the sentence: "(€10)", "10$.".
    let bare = |w: &str| {
        w.trim_matches(|c| "()[]{},.;:!?\"'".contains(c))
            .to_string()
    };
    let prefix = before
        .split_whitespace()
        .next_back()
        .map(bare)
        .filter(|w| symbol_like(w));
    let postfix = after
        .split_whitespace()
        .next()
        .map(bare)
        .filter(|w| symbol_like(w));
    let has_mark = |w: &str| w.chars().any(|c| !c.is_alphanumeric());
    match (prefix, postfix) {
        (Some(p), Some(q)) if !has_mark(&p) && has_mark(&q) => Some((q, POSTFIX)),
        (Some(p), _) => Some((p, PREFIX)),
        (None, Some(q)) => Some((q, POSTFIX)),
        (None, None) => None,
    }
}

/// A currency mark ("$", "€", "R$", "US$") or an upper-case code ("USD", "CHF"); words
/// such as "from" or "ab" are not symbols.
fn symbol_like(word: &str) -> bool {
    let len = word.chars().count();
    if len == 0 || len > 4 || word.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    if word.chars().all(|c| "-–—~/()+:;,.".contains(c)) {
        return false;
    }
    let has_mark = word.chars().any(|c| !c.is_alphanumeric());
    let is_code = len >= 2 && word.chars().all(|c| c.is_ascii_uppercase());
    has_mark || is_code
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(inputs: &[&str]) -> (String, CostDetails) {
        let owned: Vec<String> = inputs.iter().map(|s| s.to_string()).collect();
        parse_cost(&owned)
    }

    /// Asserts the whole outcome: display string, symbol, position and values.
    fn check(inputs: &[&str], display: &str, symbol: &str, position: &str, values: &[&str]) {
        let expected = CostDetails {
            currency_symbol: symbol.to_string(),
            currency_code: String::new(),
            currency_position: position.to_string(),
            values: values.iter().map(|v| v.to_string()).collect(),
        };
        assert_eq!(cost(inputs), (display.to_string(), expected), "{inputs:?}");
    }

    #[test]
    fn symbol_and_position_are_parsed() {
        check(&["20$"], "20$", "$", "postfix", &["20"]);
        check(&["$23"], "$23", "$", "prefix", &["23"]);
    }

    #[test]
    fn list_with_zero_is_a_free_range() {
        check(
            &["0$", "20$", "30$"],
            "Free – 30$",
            "$",
            "postfix",
            &["0", "20", "30"],
        );
    }

    #[test]
    fn range_uses_an_en_dash() {
        check(
            &["$10 - $20"],
            "$10 \u{2013} $20",
            "$",
            "prefix",
            &["10", "20"],
        );
    }

    #[test]
    fn plain_number_gets_the_default_symbol_but_no_details_symbol() {
        // What the reference samples show for a seeded cost of 5.
        check(&["5"], "$5", "", "", &["5"]);
        check(&["10 - 20"], "$10 – $20", "", "", &["10", "20"]);
    }

    #[test]
    fn free_and_zero_count_as_zero() {
        check(&["Free"], "Free", "", "", &["0"]);
        check(&["free"], "Free", "", "", &["0"]);
        check(&["0"], "Free", "", "", &["0"]);
        check(&["0.00"], "Free", "", "", &["0.00"]);
    }

    #[test]
    fn free_joins_a_range_as_its_minimum() {
        check(&["Free", "$15"], "Free – $15", "$", "prefix", &["0", "15"]);
    }

    #[test]
    fn no_cost_is_empty() {
        assert_eq!(cost(&[]), (String::new(), CostDetails::empty()));
        assert_eq!(cost(&["", "  "]), (String::new(), CostDetails::empty()));
    }

    #[test]
    fn free_text_is_kept_without_values() {
        check(&["Donation"], "Donation", "", "", &[]);
        check(&["  Pay what you can "], "Pay what you can", "", "", &[]);
    }

    #[test]
    fn numbers_win_over_free_text() {
        check(&["Donation", "10$"], "10$", "$", "postfix", &["10"]);
    }

    #[test]
    fn values_are_sorted_numerically_and_deduplicated() {
        let inputs = ["$100", "$9", "$20", "$9.00", "$20"];
        check(&inputs, "$9 – $100", "$", "prefix", &["9", "20", "100"]);
    }

    #[test]
    fn comma_decimal_is_normalised_but_displayed_as_written() {
        check(&["12,50 €"], "12,50€", "€", "postfix", &["12.50"]);
    }

    #[test]
    fn spaced_range_with_trailing_symbol() {
        check(&["10 - 20 €"], "10€ – 20€", "€", "postfix", &["10", "20"]);
    }

    #[test]
    fn thousands_grouping_is_removed() {
        check(&["$1,000"], "$1,000", "$", "prefix", &["1000"]);
        check(&["1.000,50 €"], "1.000,50€", "€", "postfix", &["1000.50"]);
        assert_eq!(cost(&["$1,234,567.89"]).1.values, ["1234567.89"]);
        assert_eq!(cost(&["$1,234,567"]).1.values, ["1234567"]);
    }

    #[test]
    fn single_separator_not_followed_by_three_digits_is_decimal() {
        assert_eq!(cost(&["$7.5"]).1.values, ["7.5"]);
        assert_eq!(cost(&["$0.500"]).1.values, ["0.500"]);
        assert_eq!(cost(&["$1234,5"]).1.values, ["1234.5"]);
    }

    #[test]
    fn leading_zeros_are_dropped_from_values() {
        check(&["$05"], "$05", "$", "prefix", &["5"]);
        check(&["$.5"], "$.5", "$", "prefix", &["0.5"]);
    }

    #[test]
    fn symbol_is_found_next_to_words() {
        check(&["From $10"], "$10", "$", "prefix", &["10"]);
        check(&["10$ per person"], "10$", "$", "postfix", &["10"]);
        check(&["ab 10€"], "10€", "€", "postfix", &["10"]);
        check(&["Adults 10"], "$10", "", "", &["10"]);
        check(&["(€10)"], "€10", "€", "prefix", &["10"]);
        check(&["Tickets 10$."], "10$", "$", "postfix", &["10"]);
        check(&["€10,-"], "€10", "€", "prefix", &["10"]);
    }

    #[test]
    fn currency_codes_and_longer_marks_count_as_symbols() {
        check(&["CHF 25"], "CHF25", "CHF", "prefix", &["25"]);
        check(&["25 EUR"], "25EUR", "EUR", "postfix", &["25"]);
        check(&["R$30"], "R$30", "R$", "prefix", &["30"]);
        check(&["£5", "£8"], "£5 – £8", "£", "prefix", &["5", "8"]);
    }

    #[test]
    fn conflicting_symbols_are_dropped() {
        check(&["$10", "20€"], "$10 – $20", "", "", &["10", "20"]);
    }

    #[test]
    fn conflicting_positions_keep_the_symbol_only() {
        check(&["$10", "20$"], "$10 – $20", "$", "", &["10", "20"]);
    }

    #[test]
    fn inputs_without_symbol_do_not_vote() {
        check(&["0", "20$"], "Free – 20$", "$", "postfix", &["0", "20"]);
    }

    #[test]
    fn serializes_in_wire_key_order_with_empty_currency_code() {
        let json = serde_json::to_string(&cost(&["20$"]).1).unwrap();
        let expected = r#"{"currency_symbol":"$","currency_code":"","currency_position":"postfix","values":["20"]}"#;
        assert_eq!(json, expected);
    }
}
