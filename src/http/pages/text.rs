//! The pages' UI strings: looked up in the Fluent catalogues (`locales/*.ftl`),
//! like the API's messages, so a translator edits one file per language.

use crate::api::i18n;

/// Every key the pages use; the catalogue tests fail when a language lacks one.
pub const KEYS: &[&str] = &[
    "page-skip",
    "page-nav",
    "page-nav-list",
    "page-nav-month",
    "page-nav-today",
    "page-languages",
    "page-upcoming",
    "page-events-on",
    "page-events-in",
    "page-category",
    "page-tag",
    "page-venue-events",
    "page-organizer-events",
    "page-not-found",
    "page-not-found-text",
    "page-bad-request-text",
    "page-error",
    "page-error-text",
    "page-no-events",
    "page-previous-events",
    "page-next-events",
    "page-page-of",
    "page-previous-month",
    "page-next-month",
    "page-previous-day",
    "page-next-day",
    "page-more",
    "page-more-at-least",
    "page-all-day",
    "page-time-zone",
    "page-when",
    "page-venue",
    "page-organizers",
    "page-categories",
    "page-tags",
    "page-cost",
    "page-website",
    "page-tickets",
    "page-phone",
    "page-email",
    "page-map",
    "page-add-to-calendar",
    "page-ical",
    "page-google",
    "page-subscribe",
    "page-feed",
    "page-json",
    "page-filters",
    "page-search",
    "page-organizer",
    "page-any",
    "page-apply",
    "page-clear",
    "page-password-heading",
    "page-password-text",
    "page-password",
    "page-password-submit",
    "page-password-wrong",
    "page-other-events",
];

/// The strings of one language.
#[derive(Clone, Debug)]
pub struct Tr {
    lang: String,
}

impl Tr {
    pub fn new(lang: &str) -> Tr {
        Tr {
            lang: lang.to_string(),
        }
    }

    pub fn lang(&self) -> &str {
        &self.lang
    }

    /// The text of `key`; templates call it with literal keys only.
    pub fn t(&self, key: &str) -> String {
        debug_assert!(KEYS.contains(&key), "{key} is not in pages::text::KEYS");
        i18n::text(&self.lang, key)
    }

    /// A message with one argument, `{ $value }` in the catalogue.
    pub fn with(&self, key: &str, value: &str) -> String {
        debug_assert!(KEYS.contains(&key), "{key} is not in pages::text::KEYS");
        i18n::message(&self.lang, key, &[("value", value.to_string())])
    }
}
