//! Translations: one Fluent catalogue per language in `locales/`, compiled into
//! the binary. Argument descriptions and error messages are looked up here; a
//! missing translation falls back to English (and a test forbids that).

use std::collections::HashMap;
use std::sync::LazyLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource};
use unic_langid::LanguageIdentifier;

/// The catalogues shipped: `(language, source)`.
pub const CATALOGUES: &[(&str, &str)] = &[
    ("en", include_str!("../../locales/en.ftl")),
    ("fr", include_str!("../../locales/fr.ftl")),
    ("de", include_str!("../../locales/de.ftl")),
    ("es", include_str!("../../locales/es.ftl")),
];

pub const DEFAULT_LANGUAGE: &str = "en";

struct Catalogues {
    bundles: HashMap<&'static str, FluentBundle<FluentResource>>,
}

static CATALOGUES_LOADED: LazyLock<Catalogues> = LazyLock::new(|| {
    let mut bundles = HashMap::new();
    for (lang, source) in CATALOGUES {
        let id: LanguageIdentifier = lang
            .parse()
            .expect("catalogue languages are valid identifiers");
        let mut bundle = FluentBundle::new_concurrent(vec![id]);
        // Unicode isolation marks would end up inside JSON strings.
        bundle.set_use_isolating(false);
        let resource = FluentResource::try_new((*source).to_string())
            .unwrap_or_else(|(_, errors)| panic!("locales/{lang}.ftl does not parse: {errors:?}"));
        bundle
            .add_resource(resource)
            .unwrap_or_else(|errors| panic!("locales/{lang}.ftl repeats keys: {errors:?}"));
        bundles.insert(*lang, bundle);
    }
    Catalogues { bundles }
});

/// True when a catalogue exists for the language.
pub fn supported(lang: &str) -> bool {
    CATALOGUES.iter().any(|(l, _)| *l == lang)
}

fn lookup(lang: &str, key: &str, args: Option<&FluentArgs<'_>>) -> Option<String> {
    let bundle = CATALOGUES_LOADED.bundles.get(lang)?;
    let pattern = bundle.get_message(key)?.value()?;
    let mut errors = Vec::new();
    let text = bundle.format_pattern(pattern, args, &mut errors);
    errors.is_empty().then(|| text.into_owned())
}

/// The text of `key` in `lang`, English when missing, the key itself as a last resort.
pub fn text(lang: &str, key: &str) -> String {
    lookup(lang, key, None)
        .or_else(|| lookup(DEFAULT_LANGUAGE, key, None))
        .unwrap_or_else(|| key.to_string())
}

/// A message with named arguments (`{ $params }`).
pub fn message(lang: &str, key: &str, args: &[(&str, String)]) -> String {
    let mut fluent_args = FluentArgs::new();
    for (name, value) in args {
        fluent_args.set(*name, value.clone());
    }
    lookup(lang, key, Some(&fluent_args))
        .or_else(|| lookup(DEFAULT_LANGUAGE, key, Some(&fluent_args)))
        .unwrap_or_else(|| key.to_string())
}

/// Keys defined by a catalogue, for completeness checks.
pub fn keys(lang: &str) -> Vec<String> {
    let source = CATALOGUES
        .iter()
        .find(|(l, _)| *l == lang)
        .map_or("", |(_, s)| s);
    let Ok(resource) = FluentResource::try_new(source.to_string()) else {
        return Vec::new();
    };
    resource
        .entries()
        .filter_map(|e| match e {
            fluent_syntax::ast::Entry::Message(m) => Some(m.id.name.to_string()),
            _ => None,
        })
        .collect()
}

/// Texts of the OpenAPI document itself.
pub const DOC_TITLE: &str = "doc-title";
pub const DOC_DESCRIPTION: &str = "doc-description";
pub const DOC_RESPONSE_SUCCESS: &str = "doc-response-success";
pub const DOC_RESPONSE_ERROR: &str = "doc-response-error";
pub const DOC_IF_NONE_MATCH: &str = "doc-if-none-match";
pub const DOC_IF_MATCH: &str = "doc-if-match";
pub const DOC_IF_UNMODIFIED_SINCE: &str = "doc-if-unmodified-since";
pub const DOC_ETAG: &str = "doc-etag";
pub const DOC_NOT_MODIFIED: &str = "doc-not-modified";
pub const DOC_SYNC_CURSOR: &str = "doc-sync-cursor";
pub const DOC_TOTAL_FLOOR: &str = "doc-total-floor";
pub const DOC_AUTH_BASIC: &str = "doc-auth-basic";
pub const DOC_AUTH_BEARER: &str = "doc-auth-bearer";
pub const DOC_ICAL: &str = "doc-ical";
pub const DOC_CALENDAR: &str = "doc-calendar";
#[cfg(test)]
const DOC_KEYS: &[&str] = &[
    DOC_TITLE,
    DOC_DESCRIPTION,
    DOC_RESPONSE_SUCCESS,
    DOC_RESPONSE_ERROR,
    DOC_IF_NONE_MATCH,
    DOC_IF_MATCH,
    DOC_IF_UNMODIFIED_SINCE,
    DOC_ETAG,
    DOC_NOT_MODIFIED,
    DOC_SYNC_CURSOR,
    DOC_TOTAL_FLOOR,
    DOC_AUTH_BASIC,
    DOC_AUTH_BEARER,
    DOC_ICAL,
    DOC_CALENDAR,
];

pub use crate::domain::message::Msg;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::table::ROUTES;

    fn description_keys() -> Vec<&'static str> {
        let mut keys: Vec<&str> = ROUTES
            .iter()
            .flat_map(|r| r.endpoints.iter())
            .flat_map(|e| e.args.iter().map(|a| a.description))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// Every operation's summary in `/doc`.
    fn summary_keys() -> Vec<String> {
        ROUTES
            .iter()
            .flat_map(|r| r.endpoints.iter())
            .map(|e| crate::api::table::summary_key(e.op))
            .collect()
    }

    #[test]
    fn every_catalogue_has_every_key() {
        let mut needed: Vec<String> = description_keys().into_iter().map(str::to_string).collect();
        needed.extend(Msg::ALL.iter().map(|m| m.key().to_string()));
        needed.extend(DOC_KEYS.iter().map(|k| k.to_string()));
        needed.extend(summary_keys());
        needed.extend(crate::http::pages::KEYS.iter().map(|k| k.to_string()));
        for (lang, _) in CATALOGUES {
            let have = keys(lang);
            let missing: Vec<&String> = needed.iter().filter(|k| !have.contains(k)).collect();
            assert!(missing.is_empty(), "locales/{lang}.ftl lacks {missing:?}");
        }
    }

    #[test]
    fn catalogues_define_no_unknown_keys() {
        let mut known: Vec<String> = description_keys().into_iter().map(str::to_string).collect();
        known.extend(Msg::ALL.iter().map(|m| m.key().to_string()));
        known.extend(DOC_KEYS.iter().map(|k| k.to_string()));
        known.extend(summary_keys());
        known.extend(crate::http::pages::KEYS.iter().map(|k| k.to_string()));
        for (lang, _) in CATALOGUES {
            let extra: Vec<String> = keys(lang)
                .into_iter()
                .filter(|k| !known.contains(k))
                .collect();
            assert!(
                extra.is_empty(),
                "locales/{lang}.ftl defines unused keys {extra:?}"
            );
        }
    }

    #[test]
    fn translations_differ_from_english_and_format_arguments() {
        for (lang, _) in CATALOGUES.iter().filter(|(l, _)| *l != "en") {
            assert_ne!(text(lang, "list-page"), text("en", "list-page"), "{lang}");
            let msg = message(
                lang,
                Msg::MissingParams.key(),
                &[("params", "title".into())],
            );
            assert!(msg.contains("title"), "{lang}: {msg}");
        }
        assert_eq!(
            message(
                "en",
                Msg::MissingParams.key(),
                &[("params", "title, start_date".into())]
            ),
            "Missing parameter(s): title, start_date"
        );
    }

    #[test]
    fn all_msgs_are_listed() {
        let mut keys: Vec<&str> = Msg::ALL.iter().map(|m| m.key()).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), Msg::ALL.len());
    }
}
