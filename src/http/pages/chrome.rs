//! What every page shares: the layout's data (site name, language, alternates,
//! stylesheets), the response headers, and the stylesheet the server serves.

use std::sync::LazyLock;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::text::Tr;
use crate::config::Settings;
use crate::http::state::Lang;

/// The default stylesheet, compiled in so that a single binary is a whole site.
const STYLESHEET: &str = include_str!("../../../assets/calendar.css");
pub const STYLESHEET_PATH: &str = "/assets/calendar.css";

/// The stylesheet's content hash, in its URL: the file can then be cached for a
/// year, and a new build's stylesheet is a new URL.
static STYLESHEET_VERSION: LazyLock<String> =
    LazyLock::new(|| hex::encode(&Sha256::digest(STYLESHEET.as_bytes())[..6]));

/// The layout's data.
pub struct Chrome {
    pub tr: Tr,
    /// The language segment of the page's links: `""` or `"/fr"`.
    pub prefix: String,
    pub site_title: String,
    pub site_description: String,
    pub page_title: String,
    pub stylesheets: Vec<String>,
    /// The same page in every served language: `(code, absolute URL)`.
    pub alternates: Vec<(String, String)>,
    pub canonical: String,
    pub languages: Vec<(String, String)>,
}

impl Chrome {
    /// `path` is the page's path without its language segment; `query` what the
    /// language links keep of the request's (its filters, its page).
    pub fn new(
        settings: &Settings,
        lang: &Lang,
        (path, query): (&str, &str),
        page_title: String,
    ) -> Chrome {
        let site = &settings.site_url;
        let mut alternates = vec![("x-default".to_string(), format!("{site}{path}"))];
        let mut languages = Vec::new();
        for code in &settings.languages {
            let prefix = if code == "en" {
                String::new()
            } else {
                format!("/{code}")
            };
            alternates.push((code.clone(), format!("{site}{prefix}{path}")));
            languages.push((code.clone(), format!("{prefix}{path}{query}")));
        }
        let mut stylesheets = vec![format!("{STYLESHEET_PATH}?v={}", *STYLESHEET_VERSION)];
        stylesheets.extend(settings.site_stylesheet.clone());
        Chrome {
            tr: Tr::new(&lang.code),
            prefix: lang.prefix.clone(),
            site_title: settings.site_title.clone(),
            site_description: settings.site_description.clone(),
            page_title,
            stylesheets,
            alternates,
            canonical: format!("{site}{}{path}", lang.prefix),
            languages,
        }
    }

    pub fn lang(&self) -> &str {
        self.tr.lang()
    }

    /// A link to another page in the same language.
    pub fn link(&self, path: &str) -> String {
        format!("{}{path}", self.prefix)
    }
}

/// The origin (`scheme://host[:port]`) of an absolute URL; `None` for a path.
fn origin(url: &str) -> Option<&str> {
    let (scheme, rest) = url.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some(&url[..scheme.len() + 3 + end])
}

/// No script runs on these pages, so none is allowed; styles come from the
/// server itself or the configured override's origin.
pub fn content_security_policy(settings: &Settings) -> String {
    let extra = settings
        .site_stylesheet
        .as_deref()
        .and_then(origin)
        .map(|o| format!(" {o}"))
        .unwrap_or_default();
    format!(
        "default-src 'none'; style-src 'self'{extra}; img-src 'self' https: data:; \
         form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    )
}

/// A rendered page with its headers.
pub fn html(settings: &Settings, status: StatusCode, body: String) -> Response {
    let mut resp = (status, body).into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    if let Ok(csp) = HeaderValue::from_str(&content_security_policy(settings)) {
        h.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

/// `GET /assets/calendar.css`
pub async fn stylesheet() -> Response {
    let mut resp = (StatusCode::OK, STYLESHEET).into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/css; charset=utf-8"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    resp
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_origin_of_a_url_is_its_scheme_and_authority() {
        assert_eq!(
            super::origin("https://cdn.example.org:8443/brand/site.css?x=1"),
            Some("https://cdn.example.org:8443")
        );
        assert_eq!(super::origin("/local.css"), None);
    }
}
