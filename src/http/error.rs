//! Every error a client can see, and the one place that turns it into the
//! WordPress error shape: `{"code", "message", "data": {"status", …}}`.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::api::args::{ArgError, Invalid};
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("no route")]
    NoRoute,
    #[error("invalid JSON body: {0}")]
    InvalidJson(String),
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
        message: &'static str,
    },
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
            message: "Invalid parameter.".into(),
            code: None,
        }])
    }

    /// One invalid parameter with a specific reason.
    pub fn invalid_because(name: &str, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::Invalid(vec![Invalid {
            name: name.to_string(),
            message: message.into(),
            code: Some(code),
        }])
    }

    pub fn coded(status: u16, code: &'static str, message: &'static str) -> ApiError {
        ApiError::Coded {
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST),
            code,
            message,
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::NoRoute | ApiError::InvalidNamespace => StatusCode::NOT_FOUND,
            ApiError::InvalidJson(_)
            | ApiError::Missing(_)
            | ApiError::Invalid(_)
            | ApiError::TermExists { .. } => StatusCode::BAD_REQUEST,
            ApiError::Forbidden { anonymous: true } | ApiError::IncorrectPassword => {
                StatusCode::UNAUTHORIZED
            }
            ApiError::Forbidden { anonymous: false } => StatusCode::FORBIDDEN,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Coded { status, .. } => *status,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn code_and_message(&self) -> (&'static str, String) {
        match self {
            ApiError::NoRoute => (
                "rest_no_route",
                "No route was found matching the URL and request method.".into(),
            ),
            ApiError::InvalidJson(detail) => (
                "rest_invalid_json",
                format!("Invalid JSON body passed. {detail}")
                    .trim_end()
                    .to_string(),
            ),
            ApiError::Missing(names) => (
                "rest_missing_callback_param",
                format!("Missing parameter(s): {}", names.join(", ")),
            ),
            ApiError::Invalid(list) => (
                "rest_invalid_param",
                format!(
                    "Invalid parameter(s): {}",
                    list.iter()
                        .map(|i| i.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            ApiError::Forbidden { .. } => (
                "rest_forbidden",
                "Sorry, you are not allowed to do that.".into(),
            ),
            ApiError::IncorrectPassword => (
                "incorrect_password",
                "The provided password is an invalid application password.".into(),
            ),
            ApiError::PayloadTooLarge => (
                "rest_payload_too_large",
                "The request body is larger than this server accepts.".into(),
            ),
            ApiError::InvalidNamespace => (
                "rest_invalid_namespace",
                "The specified namespace could not be found.".into(),
            ),
            ApiError::TermExists { .. } => (
                "term_exists",
                "A term with the name provided already exists with this parent.".into(),
            ),
            ApiError::Coded { code, message, .. } => (code, (*message).into()),
            ApiError::Unavailable(_) => (
                "rest_unavailable",
                "The service is temporarily unavailable; try again shortly.".into(),
            ),
            ApiError::Internal(_) => (
                "rest_internal_error",
                "The server could not complete the request.".into(),
            ),
        }
    }

    fn data(&self) -> Map<String, Value> {
        let mut data = Map::new();
        data.insert("status".into(), json!(self.status().as_u16()));
        match self {
            ApiError::Missing(names) => {
                data.insert("params".into(), json!(names));
            }
            ApiError::Invalid(list) => {
                let params: Map<String, Value> = list
                    .iter()
                    .map(|i| (i.name.clone(), json!(i.message)))
                    .collect();
                let details: Map<String, Value> = list
                    .iter()
                    .filter_map(|i| {
                        i.code.map(|code| {
                            (
                                i.name.clone(),
                                json!({"code": code, "message": i.message, "data": null}),
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

    pub fn body(&self) -> Value {
        let (code, message) = self.code_and_message();
        json!({"code": code, "message": message, "data": self.data()})
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

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(m) => ApiError::Unavailable(m),
            StoreError::Conflict(m) | StoreError::Internal(m) => ApiError::Internal(m),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match &self {
            ApiError::Internal(detail) => tracing::error!(error = %detail, "request failed"),
            ApiError::Unavailable(detail) => {
                tracing::warn!(error = %detail, "database unavailable")
            }
            _ => {}
        }
        let status = self.status();
        let body = serde_json::to_vec(&self.body()).unwrap_or_default();
        let mut resp = (status, body).into_response();
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=UTF-8"),
        );
        if matches!(self, ApiError::Unavailable(_)) {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        }
        resp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_param_matches_the_reference_shape() {
        assert_eq!(
            ApiError::invalid_param("id").body(),
            json!({"code":"rest_invalid_param","message":"Invalid parameter(s): id",
                   "data":{"status":400,"params":{"id":"Invalid parameter."},"details":[]}})
        );
    }

    #[test]
    fn missing_params_lists_names() {
        assert_eq!(
            ApiError::Missing(vec!["title", "start_date", "end_date"]).body(),
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
}
