//! Every error a client can see, and the one place that turns it into the
//! WordPress error shape `{"code", "message", "data": {"status", …}}`, with the
//! message in the request's language.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::api::args::{ArgError, Invalid, Reason};
use crate::api::i18n::{self, DEFAULT_LANGUAGE, Msg};
use crate::domain::post::PostType;
use crate::service::{self, Refusal};

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("no route")]
    NoRoute,
    #[error("invalid JSON body")]
    InvalidJson { detail: Option<Msg> },
    #[error("missing parameters")]
    Missing(Vec<&'static str>),
    #[error("invalid parameters")]
    Invalid(Vec<Invalid>),
    /// `rest_forbidden`: 401 for anonymous callers, 403 for signed-in ones.
    #[error("forbidden")]
    Forbidden { anonymous: bool },
    #[error("incorrect credentials")]
    IncorrectPassword,
    #[error("payload too large")]
    PayloadTooLarge,
    #[error("unknown namespace")]
    InvalidNamespace,
    /// A term with this name already exists under the same parent.
    #[error("term exists")]
    TermExists { term_id: i64 },
    /// The resource-specific errors of the reference (`event-is-in-trash`, …).
    #[error("{code}")]
    Coded {
        status: StatusCode,
        code: &'static str,
        msg: Msg,
    },
    #[error("too many requests")]
    TooManyRequests { retry_after_secs: u64 },
    #[error("database unavailable: {0}")]
    Unavailable(String),
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    /// One invalid parameter with the generic message.
    pub fn invalid_param(name: &str) -> ApiError {
        ApiError::Invalid(vec![Invalid {
            name: name.to_string(),
            reason: Reason::Generic,
        }])
    }

    /// One invalid parameter with a specific rule and message.
    pub fn invalid_because(name: &str, code: &'static str, msg: Msg) -> ApiError {
        ApiError::Invalid(vec![Invalid {
            name: name.to_string(),
            reason: Reason::Rule { code, msg },
        }])
    }

    pub fn coded(status: u16, code: &'static str, msg: Msg) -> ApiError {
        ApiError::Coded {
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST),
            code,
            msg,
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::NoRoute | ApiError::InvalidNamespace => StatusCode::NOT_FOUND,
            ApiError::InvalidJson { .. }
            | ApiError::Missing(_)
            | ApiError::Invalid(_)
            | ApiError::TermExists { .. } => StatusCode::BAD_REQUEST,
            ApiError::Forbidden { anonymous: true } | ApiError::IncorrectPassword => {
                StatusCode::UNAUTHORIZED
            }
            ApiError::Forbidden { anonymous: false } => StatusCode::FORBIDDEN,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Coded { status, .. } => *status,
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            ApiError::NoRoute => "rest_no_route",
            ApiError::InvalidJson { .. } => "rest_invalid_json",
            ApiError::Missing(_) => "rest_missing_callback_param",
            ApiError::Invalid(_) => "rest_invalid_param",
            ApiError::Forbidden { .. } => "rest_forbidden",
            ApiError::IncorrectPassword => "incorrect_password",
            ApiError::PayloadTooLarge => "rest_payload_too_large",
            ApiError::InvalidNamespace => "rest_invalid_namespace",
            ApiError::TermExists { .. } => "term_exists",
            ApiError::Coded { code, .. } => code,
            ApiError::TooManyRequests { .. } => "rest_too_many_requests",
            ApiError::Unavailable(_) => "rest_unavailable",
            ApiError::Internal(_) => "rest_internal_error",
        }
    }

    fn message(&self, lang: &str) -> String {
        let names = |v: Vec<&str>| v.join(", ");
        match self {
            ApiError::NoRoute => i18n::text(lang, Msg::NoRoute.key()),
            ApiError::InvalidJson { detail: None } => i18n::text(lang, Msg::InvalidJson.key()),
            ApiError::InvalidJson { detail: Some(d) } => {
                format!(
                    "{} {}",
                    i18n::text(lang, Msg::InvalidJson.key()),
                    i18n::text(lang, d.key())
                )
            }
            ApiError::Missing(list) => i18n::message(
                lang,
                Msg::MissingParams.key(),
                &[("params", names(list.clone()))],
            ),
            ApiError::Invalid(list) => i18n::message(
                lang,
                Msg::InvalidParams.key(),
                &[(
                    "params",
                    names(list.iter().map(|i| i.name.as_str()).collect()),
                )],
            ),
            ApiError::Forbidden { .. } => i18n::text(lang, Msg::Forbidden.key()),
            ApiError::IncorrectPassword => i18n::text(lang, Msg::IncorrectPassword.key()),
            ApiError::PayloadTooLarge => i18n::text(lang, Msg::PayloadTooLarge.key()),
            ApiError::InvalidNamespace => i18n::text(lang, Msg::InvalidNamespace.key()),
            ApiError::TermExists { .. } => i18n::text(lang, Msg::TermExists.key()),
            ApiError::Coded { msg, .. } => i18n::text(lang, msg.key()),
            ApiError::TooManyRequests { .. } => i18n::text(lang, Msg::TooManyRequests.key()),
            ApiError::Unavailable(_) => i18n::text(lang, Msg::Unavailable.key()),
            ApiError::Internal(_) => i18n::text(lang, Msg::Internal.key()),
        }
    }

    fn data(&self, lang: &str) -> Map<String, Value> {
        let mut data = Map::new();
        data.insert("status".into(), json!(self.status().as_u16()));
        match self {
            ApiError::Missing(names) => {
                data.insert("params".into(), json!(names));
            }
            ApiError::Invalid(list) => {
                let params: Map<String, Value> = list
                    .iter()
                    .map(|i| {
                        (
                            i.name.clone(),
                            json!(crate::api::args::reason_message(&i.reason, lang, &i.name)),
                        )
                    })
                    .collect();
                let details: Map<String, Value> = list
                    .iter()
                    .filter_map(|i| {
                        i.reason.code().map(|code| {
                            let message =
                                crate::api::args::reason_message(&i.reason, lang, &i.name);
                            (
                                i.name.clone(),
                                json!({"code": code, "message": message, "data": null}),
                            )
                        })
                    })
                    .collect();
                data.insert("params".into(), Value::Object(params));
                // PHP serialises an empty array as `[]`, and clients of the reference see that.
                data.insert(
                    "details".into(),
                    if details.is_empty() {
                        json!([])
                    } else {
                        Value::Object(details)
                    },
                );
            }
            ApiError::TermExists { term_id } => {
                data.insert("term_id".into(), json!(term_id));
            }
            _ => {}
        }
        data
    }

    pub fn body(&self, lang: &str) -> Value {
        json!({"code": self.code(), "message": self.message(lang), "data": self.data(lang)})
    }

    /// The response, with the message in `lang`.
    pub fn response(self, lang: &str) -> Response {
        self.response_with_id(lang, None)
    }

    /// The response, with the request's ID in `data.request_id` for support and logs.
    pub fn response_with_id(self, lang: &str, request_id: Option<&str>) -> Response {
        match &self {
            ApiError::Internal(detail) => tracing::error!(error = %detail, "request failed"),
            ApiError::Unavailable(detail) => {
                tracing::warn!(error = %detail, "database unavailable")
            }
            _ => {}
        }
        let mut body = self.body(lang);
        if let Some(id) = request_id {
            body["data"]["request_id"] = json!(id);
        }
        let body = serde_json::to_vec(&body).unwrap_or_default();
        let mut resp = (self.status(), body).into_response();
        let h = resp.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=UTF-8"),
        );
        match self {
            ApiError::Unavailable(_) => {
                h.insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            }
            ApiError::TooManyRequests { retry_after_secs } => {
                h.insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
            }
            _ => {}
        }
        resp
    }
}

impl From<ArgError> for ApiError {
    fn from(e: ArgError) -> Self {
        match e {
            ArgError::Missing(m) => ApiError::Missing(m),
            ArgError::Invalid(i) => ApiError::Invalid(i),
        }
    }
}

impl From<Vec<Invalid>> for ApiError {
    fn from(list: Vec<Invalid>) -> Self {
        ApiError::Invalid(list)
    }
}

impl From<service::Error> for ApiError {
    fn from(e: service::Error) -> Self {
        match e {
            service::Error::Missing(names) => ApiError::Missing(names),
            service::Error::Invalid(list) => ApiError::Invalid(list),
            service::Error::Forbidden { anonymous } => ApiError::Forbidden { anonymous },
            service::Error::Refused(r) => refusal(r),
            service::Error::TermExists { term_id } => ApiError::TermExists { term_id },
            service::Error::Unavailable(m) => ApiError::Unavailable(m),
            service::Error::Internal(m) => ApiError::Internal(m),
        }
    }
}

/// The reference's status, code and message for each refusal.
fn refusal(r: Refusal) -> ApiError {
    use PostType::{Event, Venue};
    let (status, code, msg) = match r {
        Refusal::NotAccessible(Event) => (403, "event-not-accessible", Msg::EventNotAccessible),
        Refusal::NotAccessible(Venue) => (403, "venue-not-accessible", Msg::VenueNotAccessible),
        Refusal::NotAccessible(_) => (403, "organizer-not-accessible", Msg::OrganizerNotAccessible),
        Refusal::NoLongerAvailable => (
            403,
            "event-no-longer-available",
            Msg::EventNoLongerAvailable,
        ),
        Refusal::PasswordProtected => {
            (403, "event-password-protected", Msg::EventPasswordProtected)
        }
        Refusal::InTrash(Event) => (410, "event-is-in-trash", Msg::EventIsInTrash),
        Refusal::InTrash(Venue) => (410, "venue-is-in-trash", Msg::VenueIsInTrash),
        Refusal::InTrash(_) => (410, "organizer-is-in-trash", Msg::OrganizerIsInTrash),
        Refusal::PageNotFound(Event) => (
            404,
            "event-archive-page-not-found",
            Msg::EventArchivePageNotFound,
        ),
        Refusal::PageNotFound(Venue) => (
            404,
            "venue-archive-page-not-found",
            Msg::VenueArchivePageNotFound,
        ),
        Refusal::PageNotFound(_) => (
            404,
            "organizer-archive-page-not-found",
            Msg::OrganizerArchivePageNotFound,
        ),
        Refusal::PreconditionFailed => (412, "rest_precondition_failed", Msg::PreconditionFailed),
        Refusal::SyncExpired => (410, "rest_sync_expired", Msg::SyncExpired),
    };
    ApiError::coded(status, code, msg)
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        self.response(DEFAULT_LANGUAGE)
    }
}

impl super::cache::serve::Failure for ApiError {
    fn timed_out() -> Self {
        ApiError::Unavailable("request timed out".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_param_matches_the_reference_shape() {
        assert_eq!(
            ApiError::invalid_param("id").body("en"),
            json!({"code":"rest_invalid_param","message":"Invalid parameter(s): id",
                   "data":{"status":400,"params":{"id":"Invalid parameter."},"details":[]}})
        );
    }

    #[test]
    fn missing_params_lists_names() {
        assert_eq!(
            ApiError::Missing(vec!["title", "start_date", "end_date"]).body("en"),
            json!({"code":"rest_missing_callback_param","message":"Missing parameter(s): title, start_date, end_date",
                   "data":{"status":400,"params":["title","start_date","end_date"]}})
        );
    }

    #[test]
    fn forbidden_is_401_for_anonymous_and_403_otherwise() {
        assert_eq!(
            ApiError::Forbidden { anonymous: true }.status(),
            StatusCode::UNAUTHORIZED
        );
        assert_eq!(
            ApiError::Forbidden { anonymous: false }.status(),
            StatusCode::FORBIDDEN
        );
    }

    #[test]
    fn messages_follow_the_language_but_codes_do_not() {
        let en = ApiError::NoRoute.body("en");
        let fr = ApiError::NoRoute.body("fr");
        assert_eq!(en["code"], fr["code"]);
        assert_ne!(en["message"], fr["message"]);
    }
}
