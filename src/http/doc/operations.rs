//! What names and guards each operation of `/doc`: its `operationId`, its
//! `summary` (from the Fluent catalogues, `summary-<operation>`), and the
//! credentials it takes (`securitySchemes`: HTTP Basic with an application
//! password, or a bearer token; public reads take them optionally).

use axum::http::Method;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityRequirement, SecurityScheme};

use crate::api::i18n;
use crate::api::table::{Op, operation_name, summary_key};

/// The scheme names `/doc` declares.
pub const APPLICATION_PASSWORD: &str = "applicationPassword";
pub const BEARER_TOKEN: &str = "bearerToken";

/// A stable, unique `operationId`.
pub fn operation_id(op: Op, method: &Method) -> String {
    let base = operation_name(op);
    // POST, PUT and PATCH share one update endpoint; ids must still be unique.
    match *method {
        Method::PUT => format!("{base}Put"),
        Method::PATCH => format!("{base}Patch"),
        _ => base,
    }
}

/// The one-line summary, in the document's language.
pub fn summary(lang: &str, op: Op) -> String {
    i18n::text(lang, &summary_key(op))
}

/// The credentials an operation takes: reads may be anonymous (the empty
/// requirement) or authenticated, which shows more; writes need one.
pub fn security(method: &Method) -> Vec<SecurityRequirement> {
    let none: [&str; 0] = [];
    let mut out = Vec::new();
    if *method == Method::GET {
        out.push(SecurityRequirement::default());
    }
    out.push(SecurityRequirement::new(APPLICATION_PASSWORD, none));
    out.push(SecurityRequirement::new(BEARER_TOKEN, none));
    out
}

/// The schemes, with what each is.
pub fn schemes(lang: &str) -> [(&'static str, SecurityScheme); 2] {
    let mut basic = Http::new(HttpAuthScheme::Basic);
    basic.description = Some(i18n::text(lang, i18n::DOC_AUTH_BASIC));
    let mut bearer = Http::new(HttpAuthScheme::Bearer);
    bearer.description = Some(i18n::text(lang, i18n::DOC_AUTH_BEARER));
    [
        (APPLICATION_PASSWORD, SecurityScheme::Http(basic)),
        (BEARER_TOKEN, SecurityScheme::Http(bearer)),
    ]
}
