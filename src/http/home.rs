//! The site's home page (`/`), until the calendar's own pages exist: it names the
//! calendar and links its feed, its API and the API reference. WordPress clients
//! find the API from any page through the `Link` header (`wordpress.rs`), and a
//! discovery that starts at the home page needs that page to answer.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::state::{App, Lang};
use super::urls::Urls;

pub fn page(app: &App, lang: &Lang) -> Response {
    let settings = &app.settings;
    let urls = Urls::new(settings, &lang.prefix, lang.namespace);
    let text = ammonia::clean_text;
    let site = urls.site();
    let prefix = &lang.prefix;
    let html = format!(
        r#"<!doctype html>
<html lang="{code}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="alternate" type="text/calendar" title="{title}" href="{site}{prefix}/events/?ical=1">
</head>
<body>
<main>
<h1>{title}</h1>
<p>{description}</p>
<ul>
<li><a href="{site}{prefix}/events/?ical=1">iCalendar feed</a> (<a href="{webcal}{prefix}/events/?ical=1">subscribe</a>)</li>
<li><a href="{api}">REST API</a> and its <a href="{site}{prefix}/api-docs">reference</a></li>
</ul>
</main>
</body>
</html>
"#,
        code = text(&lang.code),
        title = text(&settings.site_title),
        description = text(&settings.site_description),
        site = text(site),
        prefix = text(prefix),
        webcal = text(&site.replacen("https://", "webcal://", 1).replacen(
            "http://",
            "webcal://",
            1
        )),
        api = text(urls.api()),
    );
    let mut resp = (StatusCode::OK, html).into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; base-uri 'none'; form-action 'none'"),
    );
    resp
}
